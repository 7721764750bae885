"""Dam break at the paper's Fig. 3 frames (250, 350, 450, 650) for three pressure solvers.

    python scripts/dam_break_frames.py [out.png]

Rows: "paper" (Eq. 7-10 as published), "converged" (fluidworld's default), "none" (repulsion
only, Fig. 3 bottom row). Uses the PNG helper, so it needs no OpenGL.
"""

from __future__ import annotations

import sys

from PIL import Image, ImageDraw

from fluidworld import scenes
from fluidworld.imaging import particles_image

FRAMES = (250, 350, 450, 650)


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/dam_break_fig3.png"
    tile = 320
    sheet = Image.new("RGB", (4 * (tile + 6) + 90, 3 * (tile + 6) + 24), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    for col, f in enumerate(FRAMES):
        draw.text((90 + col * (tile + 6) + tile // 2 - 30, 4), f"frame {f}", fill=(0, 0, 0))
    for row, solver in enumerate(("paper", "converged", "none")):
        fs = scenes.dam_break(pressure_solver=solver)
        draw.text((4, 24 + row * (tile + 6) + tile // 2), solver, fill=(0, 0, 0))
        for col, f in enumerate(FRAMES):
            fs.step(f - fs.steps)
            img = Image.fromarray(particles_image(fs, scale=tile / fs.params.width))
            sheet.paste(img, (90 + col * (tile + 6), 20 + row * (tile + 6)))
            print(f"{solver} frame {f}", file=sys.stderr)
    sheet.save(out)
    print(out)


if __name__ == "__main__":
    main()

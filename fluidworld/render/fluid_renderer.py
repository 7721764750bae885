"""Draw a particle fluid with arcade: Sprinkle-style droplets or a continuous liquid body.

Why the data path looks the way it does: every frame the fluid's arrays are cast (float64 ->
float32, contiguous numpy copies) into per-field staging arrays, each uploaded with one
``buffer.write``; one instanced draw call then draws every particle. Decisions per particle (which
direction to stretch along, how big, what shade) happen in the vertex shader, so the CPU cost is
independent of the look.

The projection comes from arcade's ``WindowBlock`` uniform block, which holds the matrices of the
camera that was ``use()``d last; so ``draw()`` lands wherever the caller's camera says.

Liquid mode splats every particle as a soft disc into a float texture the size of the current
viewport (additive: ``rgb += w * colour``, ``a += w``), then one full-viewport pass thresholds
``a`` into a continuous body, divides out the colour, darkens it with depth below the surface and
lightens a thin line along upward-facing surfaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from arcade.gl import BufferDescription

from . import shaders
from ._checks import at_least, between, finite, positive
from ._gl import (
    InstanceBuffer,
    Palette,
    blending,
    current_ctx,
    instanced_quads,
    quad_buffer,
    set_uniforms,
    world_to_pixel_scale,
)
from .protocols import FluidView, fluid_view, particle_spacing

__all__ = ["DropletStyle", "LiquidStyle", "FluidRenderer", "RenderMode"]

RenderMode = Literal["sprites", "liquid"]
_MODES: tuple[str, ...] = ("sprites", "liquid")


class _CheckedStyle:
    """A style whose fields are checked again when one is set on a live style (a renderer reads
    it every frame): a bad value raises, naming the field, and the old value stays."""

    def __post_init__(self) -> None:
        self._check()
        object.__setattr__(self, "_live", True)

    def _check(self) -> None:
        raise NotImplementedError

    def __setattr__(self, name: str, value: Any) -> None:
        if not self.__dict__.get("_live"):
            object.__setattr__(self, name, value)
            return
        old = getattr(self, name)
        object.__setattr__(self, name, value)
        try:
            self._check()
        except (TypeError, ValueError):
            object.__setattr__(self, name, old)
            raise


@dataclass
class DropletStyle(_CheckedStyle):
    """Look of the ``"sprites"`` mode (one elongated droplet per particle).

    Attributes:
        radius: Droplet radius at rest density, in particle spacings (1.1: since fluid particles
            repel within 0.9 spacings they bunch a little, and at 1.0 specks of background
            showed between droplets, 0.05 % of a full tank's pixels; 0.008 % at 1.1).
        size_at_zero_density: Size factor of an isolated particle (density ratio 0).
        size_per_density: Size factor gained per unit of density ratio.
        size_min: Lower clamp of the size factor.
        size_max: Upper clamp of the size factor.
        max_aspect: Long/short axis ratio at full stretch.
        grad_weak: Gradient magnitudes below this fraction of the frame's RMS gradient are
            "weak": those droplets orient along their velocity instead.
        grad_full: Gradient magnitude (fraction of the RMS) that gives full stretch.
        speed_ref: Speed (world units/s) that gives full stretch along velocity; ``None`` means
            ten cells per second (``10 * a0``).
        shade_light: Brightness factor at density ratio 0 (spray and surface look lighter).
        shade_dark: Brightness factor at density ratio ``shade_density`` and above.
        shade_density: Density ratio at which the shading reaches ``shade_dark``.

    Raises:
        TypeError / ValueError: naming the field, for a non-number, NaN/inf or out of range;
            also when a field of a live style is set (the old value stays).
    """

    radius: float = 1.1
    size_at_zero_density: float = 0.5
    size_per_density: float = 0.5
    size_min: float = 0.45
    size_max: float = 1.35
    max_aspect: float = 1.8
    grad_weak: float = 0.15
    grad_full: float = 0.8
    speed_ref: float | None = None
    shade_light: float = 1.12
    shade_dark: float = 0.88
    shade_density: float = 1.6

    def _check(self) -> None:
        for key in ("size_at_zero_density", "size_per_density", "shade_light", "shade_dark"):
            finite(f"DropletStyle.{key}", getattr(self, key))
        for key in ("radius", "size_min", "grad_full", "shade_density"):
            positive(f"DropletStyle.{key}", getattr(self, key))
        at_least("DropletStyle.max_aspect", self.max_aspect, 1.0)
        at_least("DropletStyle.grad_weak", self.grad_weak, 0.0)
        if not self.size_min <= finite("DropletStyle.size_max", self.size_max):
            raise ValueError(
                f"DropletStyle needs 0 < size_min <= size_max, got {self.size_min}, {self.size_max}"
            )
        if self.speed_ref is not None:
            positive("DropletStyle.speed_ref", self.speed_ref)


@dataclass
class LiquidStyle(_CheckedStyle):
    """Look of the ``"liquid"`` mode (metaball splats thresholded into one body).

    Attributes:
        splat_radius: Kernel radius in particle spacings. Large enough that a lattice at rest
            density leaves no holes; small enough that surface detail survives.
        threshold: Iso-value of the summed kernel (one isolated particle peaks at 1.0).
        opacity: Alpha of the liquid body.
        depth_range: Depth below the surface (world units) over which the body darkens;
            ``None`` means eight particle spacings.
        depth_darken: Fraction of brightness lost at ``depth_range`` and below.
        line_px: Thickness of the lighter surface line in screen pixels.
        line_boost: How far the line is lifted towards white (0..1).
        resolution: Offscreen field resolution as a fraction of the viewport (0 < r <= 1).

    Raises:
        TypeError / ValueError: naming the field, for a non-number, NaN/inf or out of range;
            also when a field of a live style is set (the old value stays).
    """

    splat_radius: float = 1.9
    threshold: float = 0.55
    opacity: float = 0.9
    depth_range: float | None = None
    depth_darken: float = 0.3
    line_px: float = 3.0
    line_boost: float = 0.45
    resolution: float = 1.0

    def _check(self) -> None:
        positive("LiquidStyle.splat_radius", self.splat_radius)
        positive("LiquidStyle.threshold", self.threshold)
        between("LiquidStyle.opacity", self.opacity, 0.0, 1.0)
        if self.depth_range is not None:
            positive("LiquidStyle.depth_range", self.depth_range)
        between("LiquidStyle.depth_darken", self.depth_darken, 0.0, 1.0, open_hi=True)
        at_least("LiquidStyle.line_px", self.line_px, 0.0)
        between("LiquidStyle.line_boost", self.line_boost, 0.0, 1.0)
        between("LiquidStyle.resolution", self.resolution, 0.0, 1.0, open_lo=True)


@dataclass
class _LiquidTarget:
    size: tuple[int, int] = (0, 0)
    texture: Any = None
    framebuffer: Any = None


@dataclass
class _Frame:
    """Per-frame statistics, handy for tests and overlays."""

    count: int = 0
    grad_rms: float = 0.0


def _style(name: str, value: Any, kind: type) -> Any:
    """``value`` if it is a ``kind`` (a default one for None), else a TypeError naming it."""
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__name__} or None, got {value!r}")
    return value


class FluidRenderer:
    """Draws a fluid into the current arcade window, through the active camera.

    GL objects are created on the first ``upload()``/``draw()``, so a renderer can be built
    before the window exists.

    Args:
        fluid: Any object with the ``FluidView`` attributes (``world.fluid``), or a ``World``
            (its fluid is drawn).
        mode: ``"sprites"`` (droplets) or ``"liquid"`` (continuous body). Switch at run time
            by assigning ``renderer.mode``.
        spacing: Particle spacing at rest density (world units); ``None`` derives it from
            ``fluid.params`` (see ``particle_spacing``).
        droplets: Look of the sprites mode.
        liquid: Look of the liquid mode.

    Raises:
        TypeError / ValueError: naming the argument, for a ``fluid`` that is neither a fluid
        nor a World, a spacing that is not a finite number > 0 (given, or derived from
        ``fluid.params``) or a style of the wrong type.

    Example::

        renderer = FluidRenderer(world.fluid, mode="liquid")
        def on_draw(self):
            self.clear()
            self.camera.use()
            renderer.draw()
    """

    def __init__(
        self,
        fluid: FluidView,
        *,
        mode: RenderMode = "sprites",
        spacing: float | None = None,
        droplets: DropletStyle | None = None,
        liquid: LiquidStyle | None = None,
    ) -> None:
        self.fluid = fluid_view(fluid)
        self.droplets = _style("droplets", droplets, DropletStyle)
        self.liquid = _style("liquid", liquid, LiquidStyle)
        self.spacing = (positive("spacing", spacing) if spacing is not None else positive(
            "spacing (from fluid.params)", particle_spacing(self.fluid.params)))
        self._mode: str = ""
        self.mode = mode
        self.frame = _Frame()

        self._ctx: Any = None  # GL objects are created on first use (a window must exist then)
        self._uploaded_mode = ""
        self._target = _LiquidTarget()

    def _ensure_gl(self) -> None:
        if self._ctx is not None:
            return
        ctx = current_ctx()
        corners = quad_buffer(ctx)
        self._instances = InstanceBuffer(
            ctx, shaders.PARTICLE_FIELDS, instanced_quads(ctx, corners)
        )
        self._palette = Palette(ctx)
        self._droplet_prog = ctx.program(
            vertex_shader=shaders.DROPLET_VS, fragment_shader=shaders.DROPLET_FS
        )
        self._splat_prog = ctx.program(
            vertex_shader=shaders.SPLAT_VS, fragment_shader=shaders.SPLAT_FS
        )
        self._composite_prog = ctx.program(
            vertex_shader=shaders.COMPOSITE_VS, fragment_shader=shaders.COMPOSITE_FS
        )
        set_uniforms(self._droplet_prog, u_palette=0)
        set_uniforms(self._splat_prog, u_palette=0)
        set_uniforms(self._composite_prog, u_field=0)
        fullscreen = ctx.buffer(
            data=np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32).tobytes()
        )
        self._fullscreen = ctx.geometry(
            [BufferDescription(fullscreen, "2f", ["in_vert"])], mode=ctx.TRIANGLE_STRIP
        )
        self._ctx = ctx

    # --- mode ---------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """``"sprites"`` or ``"liquid"``; assign to switch at run time."""
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {value!r}")
        self._mode = value

    def toggle_mode(self) -> str:
        """Switch to the other mode and return the new one."""
        self.mode = _MODES[(_MODES.index(self._mode) + 1) % len(_MODES)]
        return self._mode

    # --- upload -------------------------------------------------------------------------------
    def upload(self) -> int:
        """Copy the fluid's particle arrays into the GPU instance buffer.

        In sprites mode this also reads ``particle_density()`` and
        ``particle_pressure_gradient()``; liquid mode needs only positions and materials.

        Returns:
            The number of particles uploaded.
        """
        self._ensure_gl()
        fluid = self.fluid
        n = int(fluid.count)
        self._uploaded_mode = self._mode
        rows = self._instances.reserve(n)
        self._palette.update(fluid.material_colors())
        if n == 0:
            self._instances.upload(0)
            self.frame = _Frame()
            return 0
        rows["pos"][:] = fluid.positions[:n]
        rows["material"][:, 0] = fluid.materials[:n]
        grad_rms = 0.0
        if self._mode == "sprites":
            grad = fluid.particle_pressure_gradient()[:n]
            rows["vel"][:] = fluid.velocities[:n]
            rows["grad"][:] = grad
            rows["density"][:, 0] = fluid.particle_density()[:n]
            sample = grad[:: max(1, n // 4096)]
            grad_rms = float(np.sqrt(np.mean(np.einsum("ij,ij->i", sample, sample))))
            self._instances.upload(n)
        else:
            self._instances.upload(n, ("pos", "material"))
        self.frame = _Frame(count=n, grad_rms=grad_rms)
        return n

    # --- draw ---------------------------------------------------------------------------------
    def draw(self, *, upload: bool = True) -> None:
        """Draw the fluid with the active camera into the active framebuffer.

        Args:
            upload: Read the fluid first (``upload()``). Pass ``False`` to redraw the last upload
                (it uploads anyway if nothing was uploaded for the current mode yet).
        """
        needs = self._uploaded_mode != self._mode and self._uploaded_mode != "sprites"
        if upload or needs:
            self.upload()
        if self._instances.count == 0:
            return
        if self._mode == "sprites":
            self._draw_droplets()
        else:
            self._draw_liquid()

    def _draw_droplets(self) -> None:
        ctx = self._ctx
        st = self.droplets
        a0 = float(self.fluid.params.a0)
        g_ref = max(self.frame.grad_rms, 1e-30)
        set_uniforms(
            self._droplet_prog,
            u_radius=st.radius * self.spacing,
            u_size_clamp=(st.size_min, st.size_max),
            u_size_lin=(st.size_at_zero_density, st.size_per_density),
            u_grad_weak=st.grad_weak * g_ref if self.frame.grad_rms > 0 else 1e30,
            u_grad_ref=st.grad_full * g_ref,
            u_speed_ref=st.speed_ref if st.speed_ref is not None else 10.0 * a0,
            u_max_aspect=st.max_aspect,
            u_shade=(st.shade_light, st.shade_dark),
            u_shade_density=st.shade_density,
        )
        self._palette.use(0)
        with blending(ctx, ctx.BLEND_DEFAULT):
            self._instances.geometry.render(
                self._droplet_prog, vertices=4, instances=self._instances.count
            )

    def _ensure_target(self, size: tuple[int, int]) -> _LiquidTarget:
        target = self._target
        if target.size != size:
            if target.framebuffer is not None:
                target.framebuffer.delete()
                target.texture.delete()
            tex = self._ctx.texture(size, components=4, dtype="f2")
            tex.filter = self._ctx.LINEAR, self._ctx.LINEAR
            tex.wrap_x = self._ctx.CLAMP_TO_EDGE
            tex.wrap_y = self._ctx.CLAMP_TO_EDGE
            target.texture = tex
            target.framebuffer = self._ctx.framebuffer(color_attachments=[tex])
            target.size = size
        return target

    def _draw_liquid(self) -> None:
        ctx = self._ctx
        st = self.liquid
        previous = ctx.active_framebuffer
        vp = ctx.viewport
        w = max(1, round(vp[2] * st.resolution))
        h = max(1, round(vp[3] * st.resolution))
        if vp[2] <= 0 or vp[3] <= 0:
            return
        target = self._ensure_target((w, h))
        px_per_unit = world_to_pixel_scale(ctx) * st.resolution

        # 1) splat: the WindowBlock still holds the caller's camera, and the offscreen viewport
        #    covers the whole texture, so the texture is an image of the caller's viewport.
        target.framebuffer.use()
        target.framebuffer.clear(color_normalized=(0.0, 0.0, 0.0, 0.0))
        set_uniforms(self._splat_prog, u_splat_radius=st.splat_radius * self.spacing)
        self._palette.use(0)
        with blending(ctx, ctx.BLEND_ADDITIVE):
            self._instances.geometry.render(
                self._splat_prog, vertices=4, instances=self._instances.count
            )
        previous.use()

        # 2) composite over the caller's framebuffer, in its viewport.
        depth_range = st.depth_range if st.depth_range is not None else 8.0 * self.spacing
        set_uniforms(
            self._composite_prog,
            u_threshold=st.threshold,
            u_opacity=st.opacity,
            u_depth_texels=depth_range * px_per_unit,
            u_depth_darken=st.depth_darken,
            u_line_texels=max(st.line_px * st.resolution, 0.0),
            u_line_boost=st.line_boost,
        )
        target.texture.use(0)
        with blending(ctx, ctx.BLEND_DEFAULT):
            self._fullscreen.render(self._composite_prog)

    def release(self) -> None:
        """Free the liquid mode's offscreen texture now rather than at garbage collection."""
        if self._target.framebuffer is not None:
            self._target.framebuffer.delete()
            self._target.texture.delete()
            self._target = _LiquidTarget()

"""GLSL sources for the fluid renderer.

The sources live in Python strings rather than ``.glsl`` files so that they ship with the package
without any package-data configuration.

Every world-space program reads arcade's ``WindowBlock`` uniform block (binding 0), which holds the
projection and view matrices of the camera that is active when ``draw()`` is called. That is what
makes the renderer respect a user's ``arcade.Camera2D`` without being told about it.

Per-particle instance data is one float32 buffer per field (see ``PARTICLE_FIELDS``)::

    in_pos (vec2)  in_vel (vec2)  in_grad (vec2)  in_density (float)  in_material (float)

The direction/size/colour decisions are made in the vertex shader so that the CPU side is only a
handful of contiguous float64 -> float32 casts per frame.
"""

from __future__ import annotations

__all__ = [
    "PARTICLE_FIELDS",
    "DROPLET_VS",
    "DROPLET_FS",
    "SPLAT_VS",
    "SPLAT_FS",
    "COMPOSITE_VS",
    "COMPOSITE_FS",
    "STREAK_VS",
    "STREAK_FS",
    "CELL_VS",
    "CELL_FS",
    "MARKER_VS",
    "MARKER_FS",
    "ARROW_VS",
    "ARROW_FS",
]

#: Per-particle instance fields (float32 components); field ``x`` is the attribute ``in_x``.
PARTICLE_FIELDS = {"pos": 2, "vel": 2, "grad": 2, "density": 1, "material": 1}

_WINDOW_BLOCK = """
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;
"""

# --- sprites mode -------------------------------------------------------------------------------
# One instanced quad per particle. The quad is stretched along a direction: the pressure gradient
# where it is strong enough, else the velocity. Density sets the size (denser -> bigger, clamped).
DROPLET_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform sampler2D u_palette;
uniform float u_radius;        // nominal droplet radius, world units
uniform vec2 u_size_clamp;     // (min, max) size factor
uniform vec2 u_size_lin;       // size factor = u_size_lin.x + u_size_lin.y * density
uniform float u_grad_weak;     // |grad| below this -> use velocity
uniform float u_grad_ref;      // |grad| giving full stretch
uniform float u_speed_ref;     // |vel| giving full stretch (velocity fallback)
uniform float u_max_aspect;    // long/short axis ratio at full stretch
uniform vec2 u_shade;          // (light at density 0, dark at density >= u_shade_density)
uniform float u_shade_density;

in vec2 in_corner;
in vec2 in_pos;
in vec2 in_vel;
in vec2 in_grad;
in float in_density;
in float in_material;

out vec2 v_uv;
out vec4 v_color;

void main() {
    float g = length(in_grad);
    float s = length(in_vel);
    vec2 dir = vec2(1.0, 0.0);
    float stretch = 0.0;
    if (g > u_grad_weak) {
        dir = in_grad / g;
        stretch = clamp(g / u_grad_ref, 0.0, 1.0);
    } else if (s > 1e-6) {
        dir = in_vel / s;
        stretch = clamp(s / u_speed_ref, 0.0, 1.0);
    }
    float aspect = mix(1.0, u_max_aspect, stretch);
    float size = clamp(u_size_lin.x + u_size_lin.y * in_density, u_size_clamp.x, u_size_clamp.y);
    float r = u_radius * size;
    float half_long = r * sqrt(aspect);
    float half_short = r / sqrt(aspect);
    vec2 perp = vec2(-dir.y, dir.x);
    vec2 world = in_pos + dir * (in_corner.x * half_long) + perp * (in_corner.y * half_short);
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);

    v_uv = in_corner;
    vec4 base = texelFetch(u_palette, ivec2(int(in_material + 0.5), 0), 0);
    float t = clamp(in_density / u_shade_density, 0.0, 1.0);
    v_color = vec4(base.rgb * mix(u_shade.x, u_shade.y, t), base.a);
}
"""
)

DROPLET_FS = """#version 330
in vec2 v_uv;
in vec4 v_color;
out vec4 f_color;

void main() {
    // Teardrop: full width at the head (+x), narrower towards the tail (-x).
    float width = mix(0.6, 1.0, smoothstep(-1.0, 0.4, v_uv.x));
    float d = length(vec2(v_uv.x, v_uv.y / width));
    float aa = max(fwidth(d), 1e-4);
    float alpha = 1.0 - smoothstep(1.0 - aa, 1.0, d);
    if (alpha <= 0.0) discard;
    // A soft highlight towards the head gives the droplet some volume.
    float hl = 0.12 * (1.0 - clamp(length(v_uv - vec2(0.35, 0.25)) * 1.6, 0.0, 1.0));
    f_color = vec4(min(v_color.rgb + hl, 1.0), v_color.a * alpha);
}
"""

# --- liquid mode: splat pass --------------------------------------------------------------------
# Additive splats into a float texture: rgb = sum(w * colour), a = sum(w).
SPLAT_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform sampler2D u_palette;
uniform float u_splat_radius;

in vec2 in_corner;
in vec2 in_pos;
in float in_material;

out vec2 v_uv;
out vec3 v_color;

void main() {
    vec2 world = in_pos + in_corner * u_splat_radius;
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);
    v_uv = in_corner;
    v_color = texelFetch(u_palette, ivec2(int(in_material + 0.5), 0), 0).rgb;
}
"""
)

SPLAT_FS = """#version 330
in vec2 v_uv;
in vec3 v_color;
out vec4 f_color;

void main() {
    float r2 = dot(v_uv, v_uv);
    if (r2 >= 1.0) discard;
    float k = 1.0 - r2;
    float w = k * k;          // smooth, compact kernel: 1 at the centre, 0 at the splat radius
    f_color = vec4(v_color * w, w);
}
"""

# --- liquid mode: composite pass ----------------------------------------------------------------
COMPOSITE_VS = """#version 330
in vec2 in_vert;
out vec2 v_uv;
void main() {
    gl_Position = vec4(in_vert, 0.0, 1.0);
    v_uv = in_vert * 0.5 + 0.5;
}
"""

COMPOSITE_FS = """#version 330
uniform sampler2D u_field;
uniform float u_threshold;
uniform float u_opacity;
uniform float u_depth_texels;     // depth range (texels) over which the body darkens
uniform float u_depth_darken;     // fraction of brightness lost at full depth
uniform float u_line_texels;      // thickness of the lighter surface line (texels)
uniform float u_line_boost;       // how much lighter the surface line is

in vec2 v_uv;
out vec4 f_color;

const int DEPTH_SAMPLES = 12;

void main() {
    vec2 texel = 1.0 / vec2(textureSize(u_field, 0));
    vec4 f = texture(u_field, v_uv);
    float w = f.a;
    float aa = max(fwidth(w), 1e-4);
    float inside = smoothstep(u_threshold - 0.5 * aa, u_threshold + 0.5 * aa, w);
    if (inside <= 0.0) discard;
    vec3 col = f.rgb / max(w, 1e-6);

    // Depth: how much of a narrow upward cone (up to u_depth_texels) is liquid. The samples
    // alternate left/right of the column so the shading does not streak under surface bumps.
    float depth = 0.0;
    for (int i = 1; i <= DEPTH_SAMPLES; ++i) {
        float t = float(i) / float(DEPTH_SAMPLES);
        float side = (i % 2 == 0) ? 1.0 : -1.0;
        vec2 off = vec2(side * 0.35 * t, t) * u_depth_texels;
        float a = texture(u_field, v_uv + off * texel).a;
        depth += smoothstep(0.5 * u_threshold, 2.0 * u_threshold, a);
    }
    depth /= float(DEPTH_SAMPLES);
    col *= 1.0 - u_depth_darken * depth;

    // Surface line: liquid here, air u_line_texels above.
    float above = texture(u_field, v_uv + vec2(0.0, u_line_texels * texel.y)).a;
    float line = 1.0 - step(u_threshold, above);
    col = mix(col, col + (1.0 - col) * u_line_boost, line);

    f_color = vec4(col, u_opacity * inside);
}
"""

# --- splashes: streaks along velocity ------------------------------------------------------------
STREAK_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform float u_streak_time;   // streak length = |v| * u_streak_time
uniform float u_min_length;
uniform float u_width;

in vec2 in_corner;             // x in [0, 1] along the streak, y in [-1, 1] across
in vec2 in_pos;
in vec2 in_vel;
in vec4 in_color;

out vec4 v_color;
out float v_along;

void main() {
    float s = length(in_vel);
    vec2 dir = s > 1e-6 ? in_vel / s : vec2(0.0, 1.0);
    float len = max(s * u_streak_time, u_min_length);
    vec2 perp = vec2(-dir.y, dir.x);
    vec2 world = in_pos - dir * (len * (1.0 - in_corner.x)) + perp * (0.5 * u_width * in_corner.y);
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);
    v_color = in_color;
    v_along = in_corner.x;
}
"""
)

STREAK_FS = """#version 330
in vec4 v_color;
in float v_along;
out vec4 f_color;
void main() {
    // Fade the tail, keep the head solid.
    f_color = vec4(v_color.rgb, v_color.a * mix(0.25, 1.0, v_along));
}
"""

# --- debug overlay ------------------------------------------------------------------------------
CELL_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform float u_cell;          // cell size a0
uniform vec2 u_origin;
uniform int u_nx;
uniform vec2 u_range;          // value mapped to 0..1
uniform float u_alpha;

in vec2 in_corner;             // [0, 1]^2
in float in_value;

out vec4 v_color;

vec3 ramp(float t) {
    // blue -> cyan -> green -> yellow -> red
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)),
                 0.0, 1.0);
}

void main() {
    int i = gl_InstanceID % u_nx;
    int j = gl_InstanceID / u_nx;
    vec2 world = u_origin + (vec2(i, j) + in_corner) * u_cell;
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);
    float t = (in_value - u_range.x) / max(u_range.y - u_range.x, 1e-12);
    float a = in_value == 0.0 ? 0.0 : u_alpha;
    v_color = vec4(ramp(t), a);
}
"""
)

CELL_FS = """#version 330
in vec4 v_color;
out vec4 f_color;
void main() {
    if (v_color.a <= 0.0) discard;
    f_color = v_color;
}
"""

MARKER_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform float u_size;
in vec2 in_corner;
in vec2 in_pos;
in vec4 in_color;
out vec4 v_color;
void main() {
    vec2 world = in_pos + in_corner * u_size;
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);
    v_color = in_color;
}
"""
)

MARKER_FS = """#version 330
in vec4 v_color;
out vec4 f_color;
void main() { f_color = v_color; }
"""

# Arrows as instanced GL_LINES: 6 vertices (shaft + two head strokes) per instance.
ARROW_VS = (
    "#version 330\n"
    + _WINDOW_BLOCK
    + """
uniform float u_scale;         // arrow length = |v| * u_scale
uniform float u_max_length;
uniform vec4 u_color;
in vec2 in_shape;              // x along the arrow (0 tail .. 1 tip), y across (head)
in vec2 in_pos;
in vec2 in_vec;
out vec4 v_color;
void main() {
    float s = length(in_vec);
    vec2 dir = s > 1e-9 ? in_vec / s : vec2(1.0, 0.0);
    float len = min(s * u_scale, u_max_length);
    vec2 perp = vec2(-dir.y, dir.x);
    vec2 world = in_pos + dir * (in_shape.x * len) + perp * (in_shape.y * len);
    gl_Position = window.projection * window.view * vec4(world, 0.0, 1.0);
    v_color = s > 1e-9 ? u_color : vec4(0.0);
}
"""
)

ARROW_FS = """#version 330
in vec4 v_color;
out vec4 f_color;
void main() {
    if (v_color.a <= 0.0) discard;
    f_color = v_color;
}
"""

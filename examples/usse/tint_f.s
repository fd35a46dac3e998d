// tint_f: a fragment shader written for this example (not compiler output).
// Before it starts, the hardware samples texture unit 0 at TEXCOORD0 into
// pa2..pa3 (f16); COLOR0 arrives in pa4..pa7 (f32). The colour output (f16,
// pa0..pa1) is texel * COLOR0 * uTint (a half4 uniform in sa0..sa1).
        phas 0x0, 0
        pack.f16.f32 pa8.xyzw, pa4.xyzw
        mul.f16 pa10.xyzw, pa2.xyzw, pa8.xyzw
        mul.f16 pa0.xyzw, pa10.xyzw, sa0.xyzw

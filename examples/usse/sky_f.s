// sky_f: a fragment shader written for this example (not compiler output).
// TEXCOORD0 (a direction, f32 x3) arrives in pa0..pa2 and TEXCOORD1 (f32)
// in pa3. The shader reads the cube texture sky in that direction (a
// dependent read: the sampler's state word is sa4, where the GXP's sampler
// table puts it), writes it as the f16 colour (pa0..pa1), and writes
// DEPTH = TEXCOORD1 * uDepth.x + uDepth.y (uDepth in sa0..sa1).
        phas 0x0, 0
        texCube pa4, pa0, sa4, 0x0
        mul.f32 r0.x, pa2.y, sa0.x
        add.f32 r0.x, r0.x, sa0.y
        depthf r0, r0, r0
        pack.f16.f32 pa0.xyzw, pa4.xyzw

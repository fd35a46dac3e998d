// sum_v: a vertex shader written for this example (not compiler output).
// It loads four words from memory at the address in pa0 (aAddr), takes
// their dot product with the uniform uWeights, and adds it up in a loop
// until the sum reaches sa4 (uLimit): o0.xy = the sum.
        phas 0x0, 0
        lda32.fetch4 r0, [pa0, 0x0]
        wdf drc0
        mov.f32 i0.xyzw, r0.xyzw, r2
        dot.f32 pa4.x, sa0.xyzw, i0.xyzw
        mov.u32 r8, 0x0
loop:   add.f32 r8.x, r8.x, pa4.x
        tst.sub.f32.testnat.chan0 p0, r8, sa4
        p0 br loop
        mov.f32 o0.xy, r8.xx
        emitvtx.end.dc=2069 0x0

// scale_v: a vertex shader written for this example (not compiler output).
//   o0..o3 = aPosition * uScale + uOffset   (POSITION)
//   o4..o7 = aColor.zyxw                    (a colour with red and blue swapped)
        phas 0x0, 0
        mad.f32 o0.xy, pa0.xy, sa0.xy, sa4.xy
        mad.f32 o2.xy, pa2.xy, sa2.xy, sa6.xy
        mov.f32 o4.xy, pa4.zy, pa6
        mov.f32 o6.xy, pa4.xw, pa6
        emitvtx.end.dc=2069 0x0

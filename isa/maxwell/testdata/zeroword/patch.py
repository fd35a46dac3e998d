import sys
src,dst=sys.argv[1],sys.argv[2]
b=bytearray(open(src,'rb').read())
for a in sys.argv[3:]:
    off=int(a,0)
    b[off:off+8]=bytes(8)
open(dst,'wb').write(b)

import struct,sys
# args: out, then bundles as ctrlfields(f0,f1,f2 hex) followed by 3 words ('z' zero, 'n' mov)
MOV=0x5c9807800ff70003
def field(stall,yld):
    return stall | (yld<<4) | (7<<5) | (7<<8)
out=sys.argv[1]
data=b''
for b in sys.argv[2:]:
    f,w=b.split(':')
    fs=[int(c,16) for c in f.split(',')]
    ctl=fs[0]|(fs[1]<<21)|(fs[2]<<42)
    ws=[0 if c=='z' else MOV+ (i<<0) for i,c in enumerate(w)]
    data+=struct.pack('<4Q',ctl,*ws)
open(out,'wb').write(data)

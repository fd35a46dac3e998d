import struct,random,sys
# The random check of docs/nvtools.md ("The all-zero word"): python3 rnd.py SEED COUNT
# writes r/0.bin.. (mkdir r first); compared with nvdisasm -b SM52 -hex by hand.
random.seed(int(sys.argv[1]))
MOV=0x5c9807800ff70003
LDG=0xeed4200000070404  # var latency
S2R=0xf0c8000002170002
def fld():
    r=random.random()
    if r<0.45: return 0x7f0
    if r<0.6: return 0x7e0
    return 0x7e1|random.choice([0,0x10])
for k in range(int(sys.argv[2])):
    data=b''
    nb=random.randint(2,5)
    for b in range(nb):
        fs=[fld() for _ in range(3)]
        if b==nb-1: fs[1]=fs[2]=0x7e1
        ctl=fs[0]|(fs[1]<<21)|(fs[2]<<42)
        ws=[]
        for s in range(3):
            r=random.random()
            ws.append(0 if r<0.4 else (MOV if r<0.75 else random.choice([LDG,S2R])))
        data+=struct.pack('<4Q',ctl,*ws)
    open('r/%d.bin'%k,'wb').write(data)

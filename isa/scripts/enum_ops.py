"""Step 1 of the table generator: enumerate every opcode number of every encoding that
llvm-mc-19's disassembler decodes, with probe field values that let the printed operands be
mapped back to fields."""
import itertools, json, sys
import mc

PAD = 0x12345678  # a literal dword after every probe (for fmamk, setreg_imm32, ...)

def le(*ws):
    return b"".join((w & 0xffffffff).to_bytes(4, 'little') for w in ws)

# Field layouts used only to build probes: name -> (dword, lo, width)
class Enc:
    def __init__(self, name, prefix, opf, fields, ops, variants, extra=None):
        self.name, self.prefix, self.opf, self.fields, self.ops, self.variants = name, prefix, opf, fields, ops, variants
        self.extra = extra or {}
    def build(self, op, vals):
        words = [0, 0]
        (d, lo, w, v) = self.prefix
        words[d] |= v << lo
        d, lo, w = self.opf
        words[d] |= op << lo
        for k, v in {**self.extra, **vals}.items():
            d, lo, w = self.fields[k]
            assert v < (1 << w), (self.name, k, v)
            words[d] |= v << lo
        n = 2 if any(self.fields[k][0] == 1 for k in self.fields) or self.name in ('smem', 'mubuf') else 1
        return le(*words[:n], PAD)

def subsets(keys, vals):
    """All subsets of `keys` present (value from vals) or zero, largest first."""
    out = []
    for r in range(len(keys), -1, -1):
        for c in itertools.combinations(keys, r):
            out.append({k: (vals[k] if k in c else 0) for k in keys})
    return out

V = lambda n: 256 + n  # a VGPR in a 9-bit source field

def encodings(g11):
    E = []
    sop = dict(sdst=(0, 16, 7), ssrc0=(0, 0, 8), ssrc1=(0, 8, 8), simm16=(0, 0, 16))
    E.append(Enc('sop1', (0, 23, 9, 0b101111101), (0, 8, 8), sop, range(256),
                 [dict(sdst=8, ssrc0=24), dict(sdst=0, ssrc0=24), dict(sdst=8, ssrc0=0), dict(sdst=0, ssrc0=0)]))
    E.append(Enc('sop2', (0, 30, 2, 0b10), (0, 23, 7), sop, range(0x60),
                 [dict(sdst=8, ssrc0=24, ssrc1=40), dict(sdst=0, ssrc0=24, ssrc1=40)]))
    E.append(Enc('sopk', (0, 28, 4, 0b1011), (0, 23, 5), sop, range(0x1d),
                 [dict(sdst=8, simm16=0x1234), dict(sdst=0, simm16=0x1234), dict(sdst=8, simm16=0)]))
    E.append(Enc('sopc', (0, 23, 9, 0b101111110), (0, 16, 7), sop, range(128), [dict(ssrc0=24, ssrc1=40)]))
    E.append(Enc('sopp', (0, 23, 9, 0b101111111), (0, 16, 7), sop, range(128), [dict(simm16=3), dict(simm16=0)]))
    if g11:
        smem = dict(sbase=(0, 0, 6), sdata=(0, 6, 7), glc=(0, 14, 1), dlc=(0, 13, 1), offset=(1, 0, 21), soffset=(1, 25, 7))
        E.append(Enc('smem', (0, 26, 6, 0b111101), (0, 18, 8), smem, range(256),
                     [dict(sdata=8, sbase=12, offset=0x10, soffset=124), dict(sdata=8, sbase=0, offset=0, soffset=124), dict(sdata=0, sbase=0, offset=0, soffset=124),
                      dict(sdata=0, sbase=12, offset=0x10, soffset=124)]))
    else:
        smem = dict(sbase=(0, 0, 6), sdata=(0, 6, 7), glc=(0, 16, 1), imm=(0, 17, 1), offset=(1, 0, 21))
        E.append(Enc('smem', (0, 26, 6, 0b110000), (0, 18, 8), smem, range(256),
                     [dict(sdata=8, sbase=12, offset=0x10, imm=1), dict(sdata=8, sbase=0, offset=0, imm=1), dict(sdata=8, sbase=0, offset=0, imm=0), dict(sdata=0, sbase=0, offset=0, imm=1),
                      dict(sdata=0, sbase=12, offset=0x10, imm=1), dict(sdata=0, sbase=0, offset=0, imm=0)]))
    vop = dict(vdst=(0, 17, 8), src0=(0, 0, 9), vsrc1=(0, 9, 8))
    E.append(Enc('vop1', (0, 25, 7, 0b0111111), (0, 9, 8), vop, range(256),
                 [dict(vdst=16, src0=V(32)), dict(vdst=16, src0=0), dict(vdst=0, src0=0)]))
    E.append(Enc('vop2', (0, 31, 1, 0), (0, 25, 6), vop, range(0x3e),
                 [dict(vdst=16, src0=V(32), vsrc1=48)]))
    E.append(Enc('vopc', (0, 25, 7, 0b0111110), (0, 17, 8), vop, range(256), [dict(src0=V(32), vsrc1=48)]))
    vop3 = dict(vdst=(0, 0, 8), sdst=(0, 8, 7), opsel_hi2=(0, 14, 1), src0=(1, 0, 9), src1=(1, 9, 9), src2=(1, 18, 9),
                opsel_hi=(1, 27, 2))
    srcs = [dict(src0=V(32), src1=V(48), src2=V(64)), dict(src0=V(32), src1=V(48), src2=0),
            dict(src0=V(32), src1=0, src2=0), dict(src0=0, src1=0, src2=0)]
    v3vars = [dict(vdst=16, sdst=8, **s) for s in srcs] + [dict(vdst=126, sdst=8, **s) for s in srcs] + \
             [dict(vdst=0, sdst=0, **s) for s in srcs]
    E.append(Enc('vop3', (0, 26, 6, 0b110101 if g11 else 0b110100), (0, 16, 10), vop3, range(1024), v3vars))
    v3p = [dict(vdst=16, opsel_hi=3, opsel_hi2=1, **s) for s in srcs]
    if g11:
        E.append(Enc('vop3p', (0, 24, 8, 0b11001100), (0, 16, 7), vop3, range(128), v3p))
    else:
        E.append(Enc('vop3p', (0, 23, 9, 0b110100111), (0, 16, 7), vop3, range(128), v3p))
    if g11:
        ds = dict(offset=(0, 0, 16), gds=(0, 17, 1), addr=(1, 0, 8), data0=(1, 8, 8), data1=(1, 16, 8), vdst=(1, 24, 8))
        E.append(Enc('ds', (0, 26, 6, 0b110110), (0, 18, 8), ds, range(256),
                     [dict(offset=o, gds=g, **s) for g in (0, 1) for o in (0x201, 0)
                      for s in subsets(['addr', 'data0', 'data1', 'vdst'], dict(addr=80, data0=32, data1=48, vdst=16))]))
    else:
        ds = dict(offset=(0, 0, 16), gds=(0, 16, 1), addr=(1, 0, 8), data0=(1, 8, 8), data1=(1, 16, 8), vdst=(1, 24, 8))
        E.append(Enc('ds', (0, 26, 6, 0b110110), (0, 17, 8), ds, range(256),
                     [dict(offset=o, gds=g, **s) for g in (0, 1) for o in (0x201, 0)
                      for s in subsets(['addr', 'data0', 'data1', 'vdst'], dict(addr=80, data0=32, data1=48, vdst=16))]))
    if g11:
        fl = dict(offset=(0, 0, 13), seg=(0, 16, 2), addr=(1, 0, 8), data=(1, 8, 8), saddr=(1, 16, 7), sve=(1, 23, 1), vdst=(1, 24, 8))
        off = 124
        segs = [('flat', 0, 124), ('scratch', 1, 124), ('global', 2, 124)]
    else:
        fl = dict(offset=(0, 0, 13), sve=(0, 13, 1), seg=(0, 14, 2), addr=(1, 0, 8), data=(1, 8, 8), saddr=(1, 16, 7), vdst=(1, 24, 8))
        segs = [('flat', 0, 0), ('scratch', 1, 127), ('global', 2, 127)]
    for name, seg, off in segs:
        vals = dict(addr=80, data=32, vdst=16)
        variants = []
        for s in subsets(['addr', 'data', 'vdst'], vals):
            for sv in ([0, 1] if name == 'scratch' else [0]):
                variants.append(dict(seg=seg, offset=16, saddr=off, sve=sv, **s))
        E.append(Enc(name, (0, 26, 6, 0b110111), (0, 18, 7), fl, range(128), variants))
    mub = dict()
    E.append(Enc('mubuf', (0, 26, 6, 0b111000), (0, 18, 8 if g11 else 7), mub, range(256 if g11 else 128), [dict()]))
    return E

def enumerate_target(cpu, mattr=None):
    g11 = cpu.startswith('gfx11')
    out = []
    for e in encodings(g11):
        probes, keys = [], []
        for op in e.ops:
            for vi, var in enumerate(e.variants):
                probes.append(e.build(op, var))
                keys.append((op, vi))
        res = mc.disasm(cpu, probes, mattr)
        best = {}
        for (op, vi), r, p in zip(keys, res, probes):
            if op in best or not r or r[0] is None:
                continue
            text, length = r[0]
            if length > len(p) - 4 + 4:
                continue
            expect = len(p) - 4
            if length not in (expect, expect + 4):
                continue
            best[op] = dict(enc=e.name, op=op, variant=e.variants[vi], text=text, length=length)
        out.extend(best[k] for k in sorted(best))
        print(cpu, e.name, len(best), file=sys.stderr)
    return out


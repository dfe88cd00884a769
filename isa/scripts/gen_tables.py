#!/usr/bin/env python3
"""Generates isa/src/tables/{gfx1100,gfx942,gfx90a}.txt and isa/src/tables/opcodes.rs from llvm-mc-19.

    python3 isa/scripts/gen_tables.py [--out DIR]

1. enum_ops.py: every opcode number of every encoding that llvm-mc-19's disassembler decodes,
   with probe field values that map the printed operands back to fields;
2. parse_ops.py: the printed text as operand slots;
3. here: roles (result or operand), register files and sizes, then llvm-mc-19's assembler on
   variations of each instruction: which sources take SGPRs, AGPRs, inline constants and
   literals, how constants are typed (f16, f32, f64, packed), which modifiers each opcode
   takes, and which have DPP, DPP8, SDWA and VOP3-DPP forms.

The output is committed; isa/tests/llvm_mc.rs re-checks every row against llvm-mc-19. Names,
numbers and formats were cross-checked against tinygrad 0.14.0's enum.py lists
(isa/tests/completeness.rs); operand sizes agree with tinygrad's operands.py.
"""
import os, re, sys
from collections import OrderedDict
sys.path.insert(0, os.path.dirname(__file__))
import mc
from enum_ops import enumerate_target, le
from parse_ops import parse_entry, split_ops, reg_of

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'src', 'tables')

# gfx90a is a GFX9 target of its own encoding family: llvm-mc-19 spells its cache-policy bits
# glc/slc (gfx942: sc0/nt/sc1), it lacks gfx940's instructions (v_lshl_add_u64, v_mov_b64,
# buffer_inv, ...), has some gfx940 dropped (v_mac_f32, buffer_invl2 at buffer_inv's number),
# and its scratch instructions take a VGPR or an SGPR address, never both nor neither.
TARGETS = [('gfx1100', 'gfx11'), ('gfx942', 'gfx9'), ('gfx90a', 'gfx9')]
# The cache-policy bit that makes an atomic return its old value, and the bits probed on the
# cache-control instructions, per processor.
RETURN_BIT = {'gfx1100': ' glc', 'gfx942': ' sc0', 'gfx90a': ' glc'}
CACHE_OP_BITS = {'gfx1100': ' glc', 'gfx942': ' sc0 sc1', 'gfx90a': ' glc'}
E64_BASE = {('gfx11', 'vop1'): 0x180, ('gfx9', 'vop1'): 0x140, ('gfx11', 'vop2'): 0x100, ('gfx9', 'vop2'): 0x100,
            ('gfx11', 'vopc'): 0, ('gfx9', 'vopc'): 0}
MUBUF_CACHE = re.compile(r'^buffer_(gl0_inv|gl1_inv|wbl2|inv|invl2|wbinvl1|wbinvl1_vol)$')


class Slot:
    """One operand of a row: role d (result), u (operand), i (immediate printed in the operand
    list); field; kind; size in dwords; constant type; optional (printed `off` when absent)."""
    def __init__(self, role, field, kind, size=1, ctype=None, opt=False):
        self.role, self.field, self.kind, self.size, self.ctype, self.opt = role, field, kind, size, ctype, opt

    def token(self):
        if self.role == 'i':
            return 'i:%s:%s' % (self.field, self.kind)
        t = '%s:%s:%s%d' % (self.role, self.field, self.kind, self.size) if self.kind not in ('m', 'k') else \
            '%s:%s:%s' % (self.role, self.field, self.kind)
        if self.ctype:
            t += '/' + self.ctype
        if self.opt:
            t += '?'
        return t


class Row:
    def __init__(self, name, enc, num):
        self.name, self.enc, self.num = name, enc, num
        self.slots = []
        self.flags = OrderedDict()

    def line(self):
        ops = ' '.join(s.token() for s in self.slots)
        fl = ' '.join(k if v is True else '%s=%s' % (k, v) for k, v in self.flags.items())
        return '%-34s %-7s 0x%03x  %-60s %s' % (self.name, self.enc, self.num, ops or '-', fl)

    def srcs(self):
        return [s for s in self.slots if s.role == 'u' and s.field in ('src0', 'src1', 'src2')]


# ---------------------------------------------------------------------------------------------
# Step 3a: rows from the parsed disassembly

SOPK_READS = re.compile(r'^s_(cmpk_|setreg|waitcnt_|subvector_loop_end|cbranch_i_fork)')
SMEM_STORE = re.compile(r'^s_(buffer_|scratch_)?store')
SMEM_ATOMIC = re.compile(r'^s_(buffer_)?atomic')


def imm_style(enc, name, t0, t3):
    """How an immediate prints, from its text with simm16 = 0x1234 / 3 (t0) and = 0 (t3)."""
    t = t0 or ''
    if t.startswith('hwreg('): return 'hwreg'
    if t.startswith('sendmsg('): return 'sendmsg'
    if t.startswith('gpr_idx('): return 'gpridx'
    if t.startswith('depctr_') or name == 's_waitcnt_depctr': return 'depctr'
    if t.startswith('instid') or name == 's_delay_alu': return 'delay'
    if name == 's_waitcnt': return 'waitcnt'
    if t.startswith('0x'): return 'hex'
    if t3 is None and t0 is not None: return 'opt'
    return 'dec'


def rows_for(cpu, fam):
    entries = enumerate_target(cpu)
    by = {}
    for e in entries:
        by.setdefault(e['enc'], {})[e['op']] = e
    rows = []
    parsed = {enc: {op: parse_entry(cpu, e) for op, e in ops.items()} for enc, ops in by.items()}
    vop3 = parsed.get('vop3', {})
    used_e64 = set()
    for enc in ['sop1', 'sop2', 'sopk', 'sopc', 'sopp', 'smem', 'vop1', 'vop2', 'vopc', 'vop3', 'vop3p', 'ds',
                'flat', 'global', 'scratch', 'mubuf']:
        for op, p in sorted(parsed.get(enc, {}).items()):
            if enc == 'vop3' and (op in used_e64 or (fam == 'gfx9' and op >= 0x380)):
                continue
            if enc == 'mubuf' and not MUBUF_CACHE.match(p['name']):
                continue
            row = make_row(cpu, fam, enc, op, p, parsed, vop3, used_e64)
            if row:
                rows.append(row)
    if fam == 'gfx11':
        rows.extend(vopd_rows(cpu))
    return rows


def make_row(cpu, fam, enc, op, p, parsed, vop3, used_e64):
    name = p['name']
    ops = p['ops']
    row = Row(name, enc, op)
    if enc in ('sop1', 'sop2', 'sopc', 'sopk', 'sopp'):
        for o in ops:
            role, field = o[0], o[1]
            if role == 'i':
                if field == 'lit':
                    row.slots.append(Slot('u', 'lit', 'k'))
                else:
                    row.slots.append(Slot('i', field, 'imm'))
                continue
            if field == 'sdst':
                read = (enc == 'sopk' and SOPK_READS.match(name))
                row.slots.append(Slot('u' if read else 'd', 'sdst', 's', o[3]))
            else:
                row.slots.append(Slot('u', field, 'ss', o[3]))
        row.imm_texts = [o[5] for o in ops if o[0] == 'i' and o[1] != 'lit']
        # immediate styles are settled in settle_imms
        return row
    if enc == 'smem':
        for o in ops:
            if o[0] == 'i':
                row.slots.append(Slot('i', o[1], 'imm'))
                continue
            if o[1] == 'sdata':
                store = SMEM_STORE.match(name) or SMEM_ATOMIC.match(name)
                row.slots.append(Slot('u' if store else 'd', 'sdata', 's', o[3]))
            elif o[1] == 'sbase':
                row.slots.append(Slot('u', 'sbase', 's', o[3]))
            else:
                raise SystemExit('smem field %r in %s' % (o, p['text']))
        if SMEM_ATOMIC.match(name):
            row.flags['ret'] = True
        row.imm_texts = [o[5] for o in ops if o[0] == 'i']
        return row
    if enc in ('vop1', 'vop2', 'vopc'):
        base = E64_BASE[(fam, enc)]
        e64 = vop3.get(base + op)
        if e64 is not None and e64['name'] == name:
            used_e64.add(base + op)
            row.flags['e64'] = True
            src = e64
        else:
            src = p
        if p['sfx'] == '_e32':
            row.flags['sfx'] = True
        if any(o[5].endswith('.l') for o in p['ops']):
            row.flags['t16'] = True
        valu_slots(row, fam, enc, src, p)
        return row
    if enc == 'vop3':
        has_sdst = any(o[1] == 'sdst' for o in ops)
        if has_sdst:
            row.enc = 'vop3sd'
        valu_slots(row, fam, row.enc, p, None)
        return row
    if enc == 'vop3p':
        if name.startswith(('v_mfma', 'v_smfmac')):
            row.enc = 'mai'
        valu_slots(row, fam, row.enc, p, None)
        return row
    if enc == 'ds':
        for o in ops:
            if o[0] == 'i':
                raise SystemExit('ds imm %r' % (o,))
            role = 'd' if o[1] == 'vdst' else 'u'
            row.slots.append(Slot(role, o[1], 'v', o[3]))
        if 'offset0' in p['mods']:
            row.flags['offset2'] = True
        return row
    if enc in ('flat', 'global', 'scratch'):
        atomic = '_atomic_' in name
        for o in ops:
            if o[1] == 'off':
                continue
            role = 'd' if o[1] == 'vdst' else 'u'
            row.slots.append(Slot(role, o[1], 'v', o[3]))
        if enc == 'scratch' and not any(s.field == 'addr' for s in row.slots):
            k = 1 if row.slots and row.slots[0].role == 'd' else 0
            row.slots.insert(k, Slot('u', 'addr', 'v', 1))
        if atomic:
            row.flags['ret'] = True
        return row
    if enc == 'mubuf':
        return row
    raise SystemExit('unhandled ' + enc)


def valu_slots(row, fam, enc, p, e32):
    """VALU operand slots, named by their VOP3 fields (vdst, sdst, src0..2); lane masks are `m`."""
    ops = p['ops']
    m = re.search(r'op_sel:\[([01,]+)\]', p['mods'])
    if m and p['enc'] == 'vop3':
        row.opsel_width = len(m.group(1).split(','))
    e32ops = e32['ops'] if e32 else None
    k = 0
    for i, o in enumerate(ops):
        role, field, f, size, note, tok = o
        if role == 'i':
            if field == 'lit':
                row.slots.append(Slot('u', 'lit', 'k'))
                continue
            raise SystemExit('valu imm %r in %s' % (o, p['text']))
        if field == 'vcc':
            # e32-only forms: a VCC def after vdst, or a VCC operand last
            defs = [s for s in row.slots if s.role == 'd']
            if not [s for s in row.slots if s.role == 'u'] and (defs or enc == 'vopc'):
                row.slots.append(Slot('d', 'sdst' if defs else 'vdst', 'm'))
            else:
                row.slots.append(Slot('u', 'src2', 'm'))
            continue
        if field in ('vdst', 'sdst'):
            mask = (field == 'sdst') or (enc == 'vopc' and f == 's') or (enc == 'vopc' and p['enc'] == 'vop3')
            if mask and f == 's':
                row.slots.append(Slot('d', field, 'm'))
            else:
                row.slots.append(Slot('d', field, f, size))
            continue
        if field in ('src0', 'src1', 'src2'):
            if note == 'SReg_1_XEXEC':
                row.slots.append(Slot('u', field, 'm'))
            elif note:
                row.slots.append(Slot('u', field, 's', size))  # refined by probes
            elif f == 'a':
                row.slots.append(Slot('u', field, 'a', size))
            else:
                row.slots.append(Slot('u', field, 'vs', size))
            continue
        if field == 'vsrc1':
            row.slots.append(Slot('u', 'src1', 'v', size))
            continue
        raise SystemExit('valu field %r in %s' % (o, p['text']))


def vopd_rows(cpu):
    def vopd(x, y, v1x, v1y):
        return le((0b110010 << 26) | (x << 22) | (y << 17) | (v1x << 9) | (256 + 32),
                  (16 << 24) | ((17 >> 1) << 17) | (v1y << 9) | (256 + 33), 0x12345678)
    probes, keys = [], []
    for x in range(16):
        for v in (48, 0):
            probes.append(vopd(x, 8, v, 0)); keys.append(('x', x, v))
    for y in range(32):
        for v in (49, 0):
            probes.append(vopd(8, y, 0, v)); keys.append(('y', y, v))
    res = mc.disasm(cpu, probes)
    seen = {}
    for (side, n, v), r in zip(keys, res):
        if not r or not r[0] or (side, n) in seen:
            continue
        text = r[0][0]
        half = text.split(' :: ')[0 if side == 'x' else 1]
        seen[(side, n)] = half
    rows = {}
    for (side, n), half in sorted(seen.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        name, _, rest = half.partition(' ')
        if n in rows:
            rows[n].flags['x'] = True
            continue
        row = Row(name, 'vopd', n)
        toks, _ = split_ops(rest)
        for j, tok in enumerate(toks):
            r = reg_of(tok)
            if tok == '0x12345678':
                row.slots.append(Slot('u', 'lit', 'k'))
            elif j == 0:
                row.slots.append(Slot('d', 'vdst', 'v', 1))
            elif r and r[1] in (32, 33):
                row.slots.append(Slot('u', 'src0', 'vs', 1))
            else:
                row.slots.append(Slot('u', 'src1', 'v', 1))
        if side == 'x':
            row.flags['x'] = True
        rows[n] = row
    # Y-only rows were first seen as y; X-capable ones got the flag from either side
    for n, row in rows.items():
        if ('x', n) in seen:
            row.flags['x'] = True
    return list(rows.values())


# ---------------------------------------------------------------------------------------------
# Step 3b: llvm-mc-19's assembler on variations of each row

VALU_ENCS = ('vop1', 'vop2', 'vopc', 'vop3', 'vop3sd', 'vop3p', 'mai')
SRC_V = {'src0': 20, 'src1': 30, 'src2': 40, 'lit': None}
SRC_S = {'src0': 8, 'src1': 16, 'src2': 24}


def vreg(f, base, size):
    return '%s%d' % (f, base) if size == 1 else '%s[%d:%d]' % (f, base, base + size - 1)


def slot_text(s, fam, form, alt=None, mai=False):
    """Assembly text of a slot in a probe; alt: 'v', 's', 'a', 'i' (inline), 'l' (literal) or text."""
    wave64 = fam == 'gfx9'
    if alt and alt not in ('v', 's', 'a', 'i', 'l'):
        return alt
    k = s.kind
    if s.role == 'i':
        return None
    if k == 'k':
        return '0x1234'
    if k == 'm':
        if form in ('e32', 'dpp', 'dpp8', 'sdwa', 'native32'):
            return 'vcc' if wave64 else 'vcc_lo'
        return 's[50:51]' if wave64 else 's50'
    if s.role == 'd':
        f = alt or {'s': 's', 'a': 'a'}.get(k, 'v')
        return vreg(f, 40 if f == 's' else 10, s.size)
    if k in ('l', 's') and s.role == 'u' and s.field == 'src1' and fam == 'gfx9' and not alt:
        return 'm0'
    kind = alt or {'vs': 'v', 'v': 'v', 'a': 'a', 's': 's', 'ss': 's', 'l': 's', 'av': 'v', 'avi': 'v'}[k]
    if kind == 'v':
        if s.field == 'src2' and mai:
            return vreg('v', 10, s.size)
        return vreg('v', SRC_V.get(s.field, 50), s.size)
    if kind == 'a':
        return vreg('a', SRC_V.get(s.field, 50), s.size)
    if kind == 's':
        # gfx9's constant bus takes one SGPR: all sources read the same one
        return vreg('s', 8 if fam == 'gfx9' else SRC_S.get(s.field, 32), s.size)
    if kind == 'i':
        return '1'
    if kind == 'l':
        return '0x1234'


def mnemonic(row, form):
    n = row.name
    if form == 'e32':
        return n + ('_e32' if row.flags.get('sfx') else '')
    if form == 'e64':
        return n + ('_e64' if row.enc in ('vop1', 'vop2', 'vopc') else '')
    if form in ('dpp', 'dpp8'):
        return n + '_dpp'
    if form == 'sdwa':
        return n + '_sdwa'
    if form == 'e64dpp':
        return n + '_e64_dpp'
    return n


DPP_TAIL = {'dpp': ' quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf', 'dpp8': ' dpp8:[0,1,2,3,4,5,6,7]',
            'e64dpp': ' quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf'}


def probe_line(row, fam, form, alts=None, wrap=None, tail=''):
    alts = alts or {}
    wrap = wrap or {}
    parts = []
    for i, s in enumerate(row.slots):
        if s.role == 'i':
            continue
        if form in ('e32', 'dpp', 'dpp8', 'sdwa') and s.kind == 'm' and row.enc == 'vopc' and fam == 'gfx11' \
                and row.name.startswith('v_cmpx'):
            continue
        t = slot_text(s, fam, form, alts.get(i), row.enc == 'mai')
        if i in wrap:
            t = wrap[i] % t
        parts.append(t)
    if row.flags.get('t16'):
        parts = [p + '.l' if re.match(r'^v\d+$', p) else p for p in parts]
    line = mnemonic(row, form) + (' ' + ', '.join(parts) if parts else '')
    if form in DPP_TAIL:
        line += DPP_TAIL[form]
    if form == 'sdwa':
        if row.enc == 'vopc':
            line += ' src0_sel:DWORD src1_sel:DWORD'
        elif len(row.srcs()) > 1:
            line += ' dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD'
        else:
            line += ' dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD'
    return line + tail


def src_field_value(fam, row, form, enc_bytes, field):
    """The value of a source field in an encoding llvm-mc produced."""
    w = [int.from_bytes(bytes(enc_bytes[i:i + 4]), 'little') for i in range(0, len(enc_bytes), 4)]
    if form in ('e64', 'native') and row.enc not in ('vop1', 'vop2', 'vopc') or form == 'e64':
        sh = {'src0': 0, 'src1': 9, 'src2': 18}[field]
        return (w[1] >> sh) & 0x1ff
    return w[0] & 0x1ff if field == 'src0' else None


class Batch:
    """Collects probe lines per target and runs them in one llvm-mc-19 process."""
    def __init__(self, cpu):
        self.cpu, self.lines, self.cbs = cpu, [], []

    def add(self, line, cb):
        self.lines.append(line)
        self.cbs.append(cb)

    def run(self):
        res = mc.asm(self.cpu, self.lines)
        for r, cb in zip(res, self.cbs):
            cb(None if isinstance(r, str) else r, r if isinstance(r, str) else None)
        self.lines, self.cbs = [], []


def probe_valu(cpu, fam, rows):
    b = Batch(cpu)
    info = {}
    for row in rows:
        if row.enc not in VALU_ENCS:
            continue
        form = 'e64' if row.flags.get('e64') or row.enc in ('vop3', 'vop3sd', 'vop3p', 'mai') else 'native'
        d = info[id(row)] = dict(form=form, ok=None, acc={}, ct={}, mods={}, forms={})
        def put(key, sub=None, d=d):
            def cb(enc, err, key=key, sub=sub, d=d):
                if sub is None:
                    d[key] = (enc, err)
                else:
                    d[key][sub] = (enc, err)
            return cb
        b.add(probe_line(row, fam, form), put('ok'))
        for i, s in enumerate(row.slots):
            if s.role != 'u' or s.field not in ('src0', 'src1', 'src2') or s.kind == 'm':
                continue
            for alt in ('v', 's', 'i', 'l') + (('a',) if fam == 'gfx9' else ()):
                b.add(probe_line(row, fam, form, {i: alt}), put('acc', (i, alt)))
            for c in ('0x3800', '0x3f000000', '0x3fe00000', '0x3f00'):
                b.add(probe_line(row, fam, form, {i: c}), put('ct', (i, c)))
            b.add(probe_line(row, fam, form, wrap={i: '-%s'}), put('mods', ('neg', i)))
            b.add(probe_line(row, fam, form, wrap={i: '|%s|'}), put('mods', ('abs', i)))
        for i, s in enumerate(row.slots):
            if s.role == 'd' and s.kind in ('v', 'a') and fam == 'gfx9':
                alts = {i: 'a' if s.kind == 'v' else 'v'}
                if row.enc == 'mai':
                    # the accumulator (src2) lives in the result's file
                    alts.update({j: alts[i] for j, t in enumerate(row.slots) if t.field == 'src2' and t.kind != 'm'})
                b.add(probe_line(row, fam, form, alts), put('acc', (i, 'dst')))
        b.add(probe_line(row, fam, form, tail=' clamp'), put('mods', ('clamp', 0)))
        b.add(probe_line(row, fam, form, tail=' mul:2'), put('mods', ('omod', 0)))
        n = len(row.srcs())
        if row.enc in ('vop3p', 'mai'):
            for key in ('op_sel', 'op_sel_hi', 'neg_lo', 'neg_hi'):
                for j in range(n):
                    bits = ['0'] * n
                    bits[j] = '1'
                    b.add(probe_line(row, fam, form, tail=' %s:[%s]' % (key, ','.join(bits))), put('mods', (key, j)))
                b.add(probe_line(row, fam, form, tail=' %s:[%s]' % (key, ','.join(['0'] * n))), put('mods', (key, 'zero')))
                b.add(probe_line(row, fam, form, tail=' %s:[%s]' % (key, ','.join(['1'] * n))), put('mods', (key, 'ones')))
            for key in ('cbsz:1', 'abid:1', 'blgp:1'):
                b.add(probe_line(row, fam, form, tail=' ' + key), put('mods', (key, 0)))
        elif n:
            for j in range(n + 1):
                bits = ['0'] * (n + 1)
                bits[j] = '1'
                b.add(probe_line(row, fam, form, tail=' op_sel:[%s]' % ','.join(bits)), put('mods', ('op_sel', j)))
        forms = []
        if row.flags.get('e64'):
            forms.append('e32')
        e32form = 'e32' if row.flags.get('e64') else ('native' if row.enc in ('vop1', 'vop2', 'vopc') else None)
        if e32form and fam == 'gfx11':
            # fake16: the 16-bit operands of the _e32 forms reach v0-v127 only
            for i, s in enumerate(row.slots):
                if s.role != 'i' and s.kind in ('v', 'vs') and s.size == 1:
                    b.add(probe_line(row, fam, e32form, {i: 'v130'}), put('forms', ('e32', 'hi', i)))
            b.add(probe_line(row, fam, e32form), put('forms', ('e32', 'lobase')))
        if row.enc in ('vop1', 'vop2', 'vopc'):
            forms += ['dpp', 'dpp8'] if fam == 'gfx11' else ['dpp', 'sdwa']
        if fam == 'gfx11' and row.enc in ('vop1', 'vop2', 'vopc', 'vop3', 'vop3sd', 'vop3p'):
            forms.append('e64dpp')
        for f in forms:
            alts = {}
            if f != 'e32':
                for i, s in enumerate(row.slots):
                    if s.role == 'u' and s.kind in ('vs', 'v', 'l', 's', 'ss') and s.field in ('src0', 'src1', 'src2'):
                        alts[i] = 'v' if s.kind != 's' else 's'
            b.add(probe_line(row, fam, f, alts), put('forms', (f, 'base')))

            if f in ('dpp', 'sdwa', 'e64dpp'):
                b.add(probe_line(row, fam, f, alts, wrap={k: '-%s' for k in list(alts)[:1]}), put('forms', (f, 'neg')))
            if f == 'dpp':
                for j, k in enumerate(list(alts)[:2]):
                    b.add(probe_line(row, fam, f, alts, wrap={k: '-%s'}), put('forms', (f, 'neg', j)))
                    b.add(probe_line(row, fam, f, alts, wrap={k: '|%s|'}), put('forms', (f, 'abs', j)))
            if f == 'sdwa':
                b.add(probe_line(row, fam, f, alts, tail=' clamp'), put('forms', (f, 'clamp')))
                b.add(probe_line(row, fam, f, alts, tail=' mul:2'), put('forms', (f, 'omod')))
                b.add(probe_line(row, fam, f, {**alts, **{k: 's' for k in list(alts)[:1]}}), put('forms', (f, 'sgpr')))
    b.run()
    # A DPP source modifier counts only if the disassembler prints it back (llvm-mc-19 takes
    # `|v3|` on v_ldexp_f16_dpp's integer source and sets the bit, but never prints it).
    keys = [(d, k) for d in info.values() for k, v in d['forms'].items()
            if len(k) == 3 and k[0] == 'dpp' and v[0] is not None]
    dis = mc.disasm(cpu, [bytes(d['forms'][k][0][1]) for d, k in keys])
    for (d, k), r in zip(keys, dis):
        text = r[0][0] if r and r[0] else ''
        mark = '|' if k[1] == 'abs' else '-'
        if mark not in text.split(' ', 1)[-1].split(' row_')[0].split(' quad_perm')[0]:
            d['forms'][k] = (None, 'modifier not printed back')
    return info


def classify(fam, row, d):
    """Settles source kinds, constant types, modifiers and forms of a VALU row from its probes."""
    def ok(key, sub):
        v = d[key].get(sub)
        return v is not None and v[0] is not None
    def lit_err(key, sub):
        v = d[key].get(sub)
        return v is not None and v[1] is not None and 'literal operands are not supported' in v[1]
    form = d['form']
    for i, s in enumerate(row.slots):
        if s.role == 'd' and s.kind in ('v', 'a') and fam == 'gfx9' and ok('acc', (i, 'dst')):
            s.kind = 'av'
            if row.enc == 'mai':
                row.mai_acc = True
        if s.role != 'u' or s.field not in ('src0', 'src1', 'src2') or s.kind == 'm':
            continue
        v, sg, inl, lit = ok('acc', (i, 'v')), ok('acc', (i, 's')), ok('acc', (i, 'i')), ok('acc', (i, 'l'))
        lit = lit or lit_err('acc', (i, 'l'))
        a = ok('acc', (i, 'a'))
        if v and sg:
            s.kind = 'vs'
        elif v and a and inl:
            s.kind = 'avi'
        elif v and a:
            s.kind = 'av'
        elif v and inl:
            s.kind = 'vi'
        elif v:
            s.kind = 'v'
        elif a:
            s.kind = 'a'
        elif sg and inl and (lit or s.field == 'src0'):
            # gfx9's VOP3 takes no literal at all: a scalar first source is `ss` there too
            s.kind = 'ss'
        elif sg and inl:
            s.kind = 'l'
        elif sg:
            s.kind = 's'
        else:
            raise SystemExit('no operand accepted: %s slot %d %r' % (row.line(), i, d['acc']))
        if getattr(row, 'mai_acc', False) and s.field == 'src2' and s.kind in ('v', 'vi'):
            s.kind = 'avi' if s.kind == 'vi' else 'av'
        if s.kind in ('vs', 'vi', 'avi', 'ss', 'l'):
            def cls(c):
                r = d['ct'].get((i, c))
                if r is None:
                    return '?'
                enc, err = r
                if enc is None:
                    return 'lit' if 'literal operands are not supported' in err else 'bad'
                v = src_field_value(fam, row, form, enc[1], s.field)
                return 'inl' if v == 240 else ('lit' if v == 255 else 'other%s' % v)
            pat = (cls('0x3800'), cls('0x3f000000'), cls('0x3fe00000'))
            ct = {('inl', 'bad', 'bad'): 'f16', ('lit', 'bad', 'bad'): 'i16', ('lit', 'inl', 'lit'): None,
                  ('lit', 'lit', 'inl'): 'f64', ('lit', 'lit', 'lit'): 'b64', ('inl', 'lit', 'lit'): 'pf16',
                  ('bad', 'inl', 'bad'): None, ('bad', 'bad', 'bad'): 'ic', ('inl', 'other128', 'other128'): 'f16'}.get(pat, 'x')
            if pat == ('lit', 'lit', 'lit') and s.size == 1:
                ct = 'bf16' if cls('0x3f00') == 'inl' else 'ic'
            if s.size == 2 and ct is None:
                # Two dwords whose constants are f32s (0x3f000000 inline): packed f32
                # (v_pk_fma_f32, v_pk_mov_b32), each half a 32-bit value.
                ct = 'pf32'
            if ct == 'x':
                ct = 'u:' + '-'.join(pat)
            s.ctype = ct
    for s in row.slots:
        if s.kind == 'k':
            types = {x.ctype for x in row.srcs() if x.ctype}
            if len(types) == 1:
                s.ctype = types.pop()
    if row.name.startswith('v_wmma'):
        row.flags['wmma'] = True
    mods = OrderedDict()
    nsrc = len(row.srcs())
    neg = sum(1 << j for j, s in enumerate(row.srcs()) if ok('mods', ('neg', row.slots.index(s))))
    ab = sum(1 << j for j, s in enumerate(row.srcs()) if ok('mods', ('abs', row.slots.index(s))))
    if neg: mods['neg'] = neg
    # llvm-mc-19 accepts `|src|` on VOP3SD operations (v_div_scale_f32) but the layout has no
    # abs bits there and it encodes nothing: not a modifier of these operations.
    if ab and row.enc != 'vop3sd' and not any(s.field == 'sdst' for s in row.slots): mods['abs'] = ab
    if ok('mods', ('clamp', 0)): mods['clamp'] = True
    if ok('mods', ('omod', 0)): mods['omod'] = True
    if row.enc in ('vop3p', 'mai'):
        for key, name in (('op_sel', 'opsel'), ('op_sel_hi', 'opselhi'), ('neg_lo', 'neglo'), ('neg_hi', 'neghi')):
            m = sum(1 << j for j in range(nsrc) if ok('mods', (key, j)))
            if m:
                mods[name] = m
        m = sum(1 << j for j, key in enumerate(('cbsz:1', 'abid:1', 'blgp:1')) if ok('mods', (key, 0)))
        if m:
            mods['mai'] = m
    else:
        # op_sel:[src0, .., dst]: the destination's bit is bit 3 whatever the source count
        m = sum(1 << (j if j < nsrc else 3) for j in range(nsrc + 1) if ok('mods', ('op_sel', j)))
        if m:
            mods['opsel'] = m
        w = getattr(row, 'opsel_width', None)
        if m and w and w != nsrc + 1:
            mods['opselw'] = w
    for f in ('e32', 'dpp', 'dpp8', 'sdwa', 'e64dpp'):
        if ok('forms', (f, 'base')):
            if f != 'e32':
                mods[f] = True
            if ok('forms', (f, 'neg')) and f not in ('e64dpp', 'dpp'):
                mods[f + 'neg'] = True
            if f == 'dpp':
                dn = sum(1 << j for j in range(2) if ok('forms', (f, 'neg', j)))
                da = sum(1 << j for j in range(2) if ok('forms', (f, 'abs', j)))
                if dn:
                    mods['dppneg'] = dn
                if da:
                    mods['dppabs'] = da
            if f == 'sdwa':
                for k in ('clamp', 'omod', 'sgpr'):
                    if ok('forms', (f, k)):
                        mods['sdwa' + k] = True
        elif f == 'e32' and row.flags.get('e64'):
            mods['noe32'] = True
        if f == 'e32' and ok('forms', (f, 'lobase')):
            lo = sum(1 << i for i in range(len(row.slots)) if (f, 'hi', i) in d['forms'] and not ok('forms', (f, 'hi', i)))
            if lo:
                mods['lo128'] = lo
    row.flags.update(mods)


def mem_text(row, fam, alts=None):
    """Register texts of a memory row's slots (DS, FLAT, GLOBAL, SCRATCH)."""
    alts = alts or {}
    base = {'vdst': 10, 'addr': 20, 'data0': 30, 'data': 30, 'data1': 40}
    out = []
    for i, s in enumerate(row.slots):
        f = alts.get(i, 'v')
        out.append(vreg(f, base[s.field], s.size))
    return out


def probe_mem(cpu, fam, rows):
    """DS: gds and AGPR data; FLAT family: addressing forms, returning atomics, AGPR data."""
    b = Batch(cpu)
    res = {}
    for row in rows:
        if row.enc not in ('ds', 'flat', 'global', 'scratch'):
            continue
        d = res[id(row)] = {}
        def put(key, d=d):
            def cb(enc, err, key=key, d=d):
                d[key] = (enc, err)
            return cb
        if row.enc == 'ds':
            tail = ' offset0:1 offset1:2' if row.flags.get('offset2') else ' offset:16'
            ops = mem_text(row, fam)
            line = row.name + (' ' + ', '.join(ops) if ops else '')
            b.add(line + tail, put('base'))
            b.add(line + tail + ' gds', put('gds'))
            b.add(line, put('nooff'))
            b.add(line + ' gds', put('nooffgds'))
            odd = [o.replace('v20', 'v21') for o in ops]
            if odd != ops:
                b.add(row.name + ' ' + ', '.join(odd) + ' gds', put('oddgds'))
                b.add(row.name + ' ' + ', '.join(ops) + ' gds', put('evengds'))
            if fam == 'gfx9':
                alts = {i: 'a' for i, s in enumerate(row.slots) if s.field != 'addr'}
                if alts:
                    b.add(row.name + ' ' + ', '.join(mem_text(row, fam, alts)) + tail, put('acc'))
            continue
        ops = mem_text(row, fam)
        addr = [i for i, s in enumerate(row.slots) if s.field == 'addr']
        cp = RETURN_BIT[cpu]
        if row.enc == 'flat':
            forms = {'base': ops}
        elif row.enc == 'global':
            saddr = list(ops)
            if addr:
                saddr[addr[0]] = 'v20'
            forms = {'base': ops + ['off'], 'saddr': saddr + ['s[8:9]']}
        else:
            off = list(ops)
            off[addr[0]] = 'off'
            forms = {'base': ops + ['off'], 'saddr': off + ['s8'], 'both': ops + ['s8'], 'none': off + ['off']}
        for k, o in forms.items():
            b.add(row.name + ' ' + ', '.join(o) + ' offset:16', put(k))
        if cpu == 'gfx90a':
            # llvm-mc-19 takes `scc` on gfx90a's float atomics but encodes nothing for it
            b.add(row.name + ' ' + ', '.join(forms['base']) + ' scc', put('scc'))
        if row.flags.get('ret'):
            data = [s for s in row.slots if s.field == 'data'][0]
            for size in sorted({data.size, max(1, data.size // 2)}):
                o = [vreg('v', 10, size)] + forms['base']
                b.add(row.name + ' ' + ', '.join(o) + cp, put(('ret', size)))
        if fam == 'gfx9':
            alts = {i: 'a' for i, s in enumerate(row.slots) if s.field in ('vdst', 'data')}
            if alts:
                o = mem_text(row, fam, alts) + ([] if row.enc == 'flat' else ['off'])
                b.add(row.name + ' ' + ', '.join(o), put('acc'))
                if row.flags.get('ret'):
                    data = [s for s in row.slots if s.field == 'data'][0]
                    size = data.size if 'cmpswap' not in row.name else data.size // 2
                    o = [vreg('a', 10, size)] + mem_text(row, fam, alts) + ([] if row.enc == 'flat' else ['off'])
                    b.add(row.name + ' ' + ', '.join(o) + cp, put('accret'))
    b.run()
    for row in rows:
        d = res.get(id(row))
        if d is None:
            continue
        ok = lambda k: d.get(k) is not None and d[k][0] is not None
        if row.enc == 'ds':
            # GWS and ordered-count operations need `gds`; some (ds_nop) take no offset; an
            # operation llvm-mc-19 assembles in no form (gfx942's GWS ones) is left out.
            forms = {k: ok(k) for k in ('base', 'gds', 'nooff', 'nooffgds')}
            if not any(forms.values()):
                row.drop = True
                continue
            if forms['gds'] or forms['nooffgds']:
                row.flags['gds'] = True
            if not forms['base'] and not forms['nooff']:
                row.flags['gdsreq'] = True
            if not forms['base'] and not forms['gds']:
                row.flags['nooff'] = True
            if ok('evengds') and not ok('oddgds'):
                # gfx942's GWS operations take an even VGPR (llvm-mc-19: "vgpr must be even aligned")
                row.flags['even'] = True
        elif not ok('base') and row.enc != 'scratch':
            raise SystemExit('memory base form refused: %s %r' % (row.line(), d.get('base')))
        if row.enc == 'ds':
            pass
        for i, s in enumerate(row.slots):
            if ok('acc') and s.field not in ('addr', 'saddr'):
                s.kind = 'av'
        if row.enc == 'global':
            if not ok('saddr'):
                raise SystemExit('global without saddr: ' + row.line())
            row.slots.append(Slot('u', 'saddr', 's', 2, opt=True))
        if row.enc == 'scratch':
            for k in ('base', 'saddr'):
                if not ok(k):
                    raise SystemExit('scratch form %s refused: %s %r' % (k, row.line(), d.get(k)))
            if not ok('both') and not ok('none'):
                # gfx90a: no SVS or ST mode, the address is a VGPR or an SGPR
                row.flags['oneaddr'] = True
            elif not ok('both') or not ok('none'):
                raise SystemExit('scratch forms differ: %s %r' % (row.line(), d))
            for s in row.slots:
                if s.field == 'addr':
                    s.opt = True
            row.slots.append(Slot('u', 'saddr', 's', 1, opt=True))
        if cpu == 'gfx90a' and row.enc != 'ds' and (not ok('scc') or not d['scc'][0][1][3] & 2):
            row.flags['noscc'] = True
        if row.flags.get('ret'):
            sizes = [k[1] for k in d if isinstance(k, tuple) and k[0] == 'ret' and ok(k)]
            if len(sizes) != 1:
                raise SystemExit('atomic return size of %s: %r' % (row.line(), {k: v for k, v in d.items() if k[0] == 'ret'}))
            row.slots.insert(0, Slot('d', 'vdst', 'av' if ok('accret') else 'v', sizes[0], opt=True))


def settle_scalar(cpu, fam, rows):
    """Immediate styles of SOP*, SMEM `soffset` registers, and the literal of SOPK."""
    sopp = [r for r in rows if r.enc in ('sopp', 'sopk', 'sop1', 'sopc')]
    # disassemble again with the immediate 0 (SOPP: an operand printed only when non-zero)
    probes = []
    for r in sopp:
        if r.enc == 'sopp':
            probes.append(le((0b101111111 << 23) | (r.num << 16), 0x12345678))
        else:
            probes.append(None)
    res = mc.disasm(cpu, [p for p in probes if p])
    it = iter(res)
    zero = {}
    for r, p in zip(sopp, probes):
        if p:
            x = next(it)
            zero[id(r)] = x[0][0] if x and x[0] else None
    for r in sopp:
        texts = getattr(r, 'imm_texts', [])
        for s in r.slots:
            if s.role != 'i':
                continue
            t0 = texts[0] if texts else None
            z = zero.get(id(r))
            t3 = None
            if z is not None:
                _, _, rest = z.partition(' ')
                t3 = rest or None
            elif r.enc != 'sopp':
                t3 = 'x'
            s.kind = imm_style(r.enc, r.name, t0, t3)
            if r.name == 's_set_gpr_idx_on':
                s.kind = 'gpridx'
        if r.name in ('s_call_b64',) or r.name.startswith(('s_cbranch', 's_branch', 's_subvector_loop')):
            for s in r.slots:
                if s.role == 'i':
                    s.kind = 'branch'
    b = Batch(cpu)
    res = {}
    for r in rows:
        if r.enc != 'smem' or not any(s.field == 'sbase' for s in r.slots):
            continue
        ops = []
        for s in r.slots:
            if s.role == 'i':
                continue
            ops.append(vreg('s', 40 if s.field == 'sdata' else 20, s.size) if s.field != 'sdata' or s.kind != 'imm' else '7')
        if r.name.startswith('s_atc_probe'):
            ops = ['7'] + ops
        d = res[id(r)] = {}
        def put(key, d=d):
            def cb(enc, err, key=key, d=d):
                d[key] = enc is not None
            return cb
        b.add(r.name + ' ' + ', '.join(ops + ['s4']), put('reg'))
        b.add(r.name + ' ' + ', '.join(ops + ['s4 offset:0x10']), put('both'))
        b.add(r.name + ' ' + ', '.join(ops + ['0x10']), put('imm'))
    b.run()
    for r in rows:
        d = res.get(id(r))
        if d is None:
            continue
        if not d['imm']:
            raise SystemExit('smem immediate form refused: ' + r.line())
        if d['reg'] and d['both']:
            k = [i for i, s in enumerate(r.slots) if s.role == 'i' and s.field == 'offset'][0]
            r.slots.insert(k, Slot('u', 'soffset', 's', 1, opt=True))
        elif d['reg'] or d['both']:
            raise SystemExit('smem soffset forms differ: %s %r' % (r.line(), d))


def probe_salu(cpu, fam, rows):
    """Which SALU sources take constants (`ss`) and which SGPRs only (`s`)."""
    b = Batch(cpu)
    res = {}
    for r in rows:
        if r.enc not in ('sop1', 'sop2', 'sopc'):
            continue
        for i, s in enumerate(r.slots):
            if s.role != 'u' or s.kind != 'ss':
                continue
            def ops(alt):
                out = []
                for j, t in enumerate(r.slots):
                    if t.role == 'i':
                        out.append('sendmsg(MSG_RTN_GET_DOORBELL)' if r.name.startswith('s_sendmsg') else '0')
                    elif j == i:
                        out.append(alt)
                    else:
                        out.append(vreg('s', 8 + 8 * j, t.size))
                return r.name + (' ' + ', '.join(out) if out else '')
            d = res.setdefault((id(r), i), {})
            for key, alt in (('reg', vreg('s', 40, s.size)), ('inline', '1'), ('literal', '0x1234')):
                def cb(enc, err, key=key, d=d):
                    d[key] = enc is not None
                b.add(ops(alt), cb)
    b.run()
    for r in rows:
        for i, s in enumerate(r.slots):
            d = res.get((id(r), i))
            if d is None:
                continue
            if not d['reg']:
                raise SystemExit('SALU source refuses a register: ' + r.line())
            if not d['inline'] and not d['literal']:
                s.kind = 's'
            elif not d['literal']:
                s.kind = 'l'
            elif s.size == 2:
                # A 64-bit SALU source reads constants as a 64-bit integer: llvm-mc-19 encodes
                # `0.5` as the inline f64 constant and 0x3f000000 as a zero-extended literal
                # (isa/tests/llvm_mc.rs checks both on every such source).
                s.ctype = 'b64'


def probe_mubuf(cpu, fam, rows):
    """Which cache-control instructions take cache-policy bits (`cpol`)."""
    mub = [r for r in rows if r.enc == 'mubuf']
    bits = CACHE_OP_BITS[cpu]
    for r, res in zip(mub, mc.asm(cpu, [r.name + bits for r in mub])):
        if not isinstance(res, str):
            r.flags['cpol'] = True


def generate(cpu, fam):
    rows = rows_for(cpu, fam)
    probe_salu(cpu, fam, rows)
    probe_mubuf(cpu, fam, rows)
    info = probe_valu(cpu, fam, rows)
    for r in rows:
        d = info.get(id(r))
        if d is None:
            continue
        if d['ok'][0] is None:
            raise SystemExit('base form refused by llvm-mc-19: %s: %s\n  %s' % (r.line(), d['ok'][1], probe_line(r, fam, d['form'])))
        classify(fam, r, d)
    probe_mem(cpu, fam, rows)
    rows = [r for r in rows if not getattr(r, 'drop', False)]
    settle_scalar(cpu, fam, rows)
    return rows


FAMILY_NAME = {'gfx1100': 'gfx11', 'gfx942': 'gfx9', 'gfx90a': 'gfx90a'}

HEADER = """# The {cpu} opcode table ({fam} family), generated by isa/scripts/gen_tables.py from
# llvm-mc-19 (--disassemble over every opcode number, then its assembler on variations of
# each instruction); re-checked against llvm-mc-19 by isa/tests/llvm_mc.rs. Do not edit.
#
# name  encoding  opcode  slots...  flags...
#   slot  = role:field:kind[size][/const-type][?]   role d result, u operand, i immediate;
#           ? optional (printed `off`, or an atomic's return). Kinds: s SGPR, v VGPR, a AGPR,
#           av VGPR or AGPR, ss SGPR/constant/literal, vs VGPR/SGPR/constant/literal,
#           vi VGPR/inline constant, avi VGPR/AGPR/inline constant, l SGPR/M0/inline constant,
#           m lane mask, k literal; immediates name their print style.
#   flags = e64 (has a VOP3 form), sfx (prints _e32/_e64), noe32, neg=/abs= (source masks),
#           clamp, omod, opsel=, opselhi=, neglo=, neghi=, mai= (cbsz 1, abid 2, blgp 4), dpp, dpp8,
#           sdwa, e64dpp, dppneg=/dppabs= (DPP16 source masks), sdwaneg, sdwaclamp, sdwaomod, sdwasgpr, t16 (16-bit halves),
#           x (VOPD X slot), ret (atomic returns its old value with glc/sc0), gds, gdsreq (gds required),
#           nooff (no offset), even (an even VGPR address), offset2, oneaddr (a scratch address
#           in a VGPR or an SGPR, not both nor neither), noscc (gfx90a: no SCC cache bit),
#           lo128= (slots limited to v0-v127 in the _e32-based forms), cpol (MUBUF cache bits), opselw= (op_sel's printed width when a tied source counts), wmma (accumulators halve
#           in wave64).
# = alias name: another name llvm-mc-19 accepts for an opcode (found among tinygrad's names).
"""


TINYGRAD = {'gfx1100': 'tinygrad_rdna3.txt', 'gfx942': 'tinygrad_cdna.txt', 'gfx90a': 'tinygrad_cdna.txt'}


def aliases(cpu, fam, rows):
    """Other names llvm-mc-19 accepts for our opcodes, found among tinygrad's names: a listed
    name that is not ours but assembles, in the operand form of an opcode whose name extends
    it, to that opcode (`v_accvgpr_read` is `v_accvgpr_read_b32`)."""
    path = os.path.join(HERE, '..', 'tests', 'data', TINYGRAD[cpu])
    ours = {r.name: r for r in rows}
    names = set()
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        n = line.split()[1]
        n = re.sub(r'_e(32|64)$', '', n)
        if n not in ours:
            names.add(n)
    tries = []
    for n in sorted(names):
        for r in rows:
            if r.enc in VALU_ENCS and r.name.startswith(n + '_'):
                form = 'e64' if r.flags.get('e64') or r.enc not in ('vop1', 'vop2', 'vopc') else 'native'
                line = probe_line(r, fam, form)
                tries.append((n, r.name, n + line[len(mnemonic(r, form)):]))
    found = {}
    for (n, target, line), res in zip(tries, mc.asm(cpu, [t[2] for t in tries])):
        if not isinstance(res, str) and re.sub(r'_e(32|64)$', '', res[0].split(' ')[0]) == target:
            found.setdefault(n, target)
    return sorted(found.items())


def write_table(cpu, fam, rows):
    path = os.path.join(OUT, cpu + '.txt')
    with open(path, 'w') as f:
        f.write(HEADER.format(cpu=cpu, fam=FAMILY_NAME[cpu]))
        for r in rows:
            f.write(r.line().rstrip() + '\n')
        for alias, target in aliases(cpu, fam, rows):
            f.write('= %s %s\n' % (alias, target))
    print('wrote %s (%d opcodes)' % (path, len(rows)), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Step 4: the Opcode variants

# GFX11 renamed many GFX9 operations; one variant covers both names (the GFX9 name from these
# rewrites of the GFX11 one), so instruction selection can name an operation once.
RENAMES = [
    (r'^(s|s_buffer|global|flat|scratch|buffer)_(load|store)_b32$', r'\1_\2_dword'),
    (r'^(s|s_buffer|global|flat|scratch|buffer)_(load|store)_b64$', r'\1_\2_dwordx2'),
    (r'^(s|s_buffer|global|flat|scratch|buffer)_(load|store)_b96$', r'\1_\2_dwordx3'),
    (r'^(s|s_buffer|global|flat|scratch|buffer)_(load|store)_b128$', r'\1_\2_dwordx4'),
    (r'^(s|s_buffer)_load_b256$', r'\1_load_dwordx8'),
    (r'^(s|s_buffer)_load_b512$', r'\1_load_dwordx16'),
    (r'^(global|flat|scratch)_load_u8$', r'\1_load_ubyte'),
    (r'^(global|flat|scratch)_load_i8$', r'\1_load_sbyte'),
    (r'^(global|flat|scratch)_load_u16$', r'\1_load_ushort'),
    (r'^(global|flat|scratch)_load_i16$', r'\1_load_sshort'),
    (r'^(global|flat|scratch)_store_b8$', r'\1_store_byte'),
    (r'^(global|flat|scratch)_store_b16$', r'\1_store_short'),
    (r'^(global|flat|scratch)_load_d16_u8$', r'\1_load_ubyte_d16'),
    (r'^(global|flat|scratch)_load_d16_i8$', r'\1_load_sbyte_d16'),
    (r'^(global|flat|scratch)_load_d16_b16$', r'\1_load_short_d16'),
    (r'^(global|flat|scratch)_load_d16_hi_u8$', r'\1_load_ubyte_d16_hi'),
    (r'^(global|flat|scratch)_load_d16_hi_i8$', r'\1_load_sbyte_d16_hi'),
    (r'^(global|flat|scratch)_load_d16_hi_b16$', r'\1_load_short_d16_hi'),
    (r'^(global|flat|scratch)_store_d16_hi_b8$', r'\1_store_byte_d16_hi'),
    (r'^(global|flat|scratch)_store_d16_hi_b16$', r'\1_store_short_d16_hi'),
    (r'^(global|flat)_atomic_(swap|cmpswap)_b32$', r'\1_atomic_\2'),
    (r'^(global|flat)_atomic_(swap|cmpswap)_b64$', r'\1_atomic_\2_x2'),
    (r'^(global|flat)_atomic_(add|sub|inc|dec)_u32$', r'\1_atomic_\2'),
    (r'^(global|flat)_atomic_(add|sub|inc|dec)_u64$', r'\1_atomic_\2_x2'),
    (r'^(global|flat)_atomic_(and|or|xor)_b32$', r'\1_atomic_\2'),
    (r'^(global|flat)_atomic_(and|or|xor)_b64$', r'\1_atomic_\2_x2'),
    (r'^(global|flat)_atomic_(min|max)_i32$', r'\1_atomic_s\2'),
    (r'^(global|flat)_atomic_(min|max)_u32$', r'\1_atomic_u\2'),
    (r'^(global|flat)_atomic_(min|max)_i64$', r'\1_atomic_s\2_x2'),
    (r'^(global|flat)_atomic_(min|max)_u64$', r'\1_atomic_u\2_x2'),
    (r'^ds_load_(b32|b64|b96|b128|u8|i8|u16|i16)$', r'ds_read_\1'),
    (r'^ds_store_(b32|b64|b96|b128|b8|b16)$', r'ds_write_\1'),
    (r'^ds_load_2addr_(b32|b64)$', r'ds_read2_\1'),
    (r'^ds_load_2addr_stride64_(b32|b64)$', r'ds_read2st64_\1'),
    (r'^ds_store_2addr_(b32|b64)$', r'ds_write2_\1'),
    (r'^ds_store_2addr_stride64_(b32|b64)$', r'ds_write2st64_\1'),
    (r'^ds_storexchg_rtn_(b32|b64)$', r'ds_wrxchg_rtn_\1'),
    (r'^ds_storexchg_2addr_rtn_(b32|b64)$', r'ds_wrxchg2_rtn_\1'),
    (r'^ds_storexchg_2addr_stride64_rtn_(b32|b64)$', r'ds_wrxchg2st64_rtn_\1'),
    (r'^ds_cmpstore_(rtn_)?(b32|b64|f32|f64)$', r'ds_cmpst_\1\2'),
    (r'^ds_load_addtid_b32$', r'ds_read_addtid_b32'),
    (r'^ds_store_addtid_b32$', r'ds_write_addtid_b32'),
    (r'^s_(and|or)_not1_(b32|b64)$', r's_\1n2_\2'),
    (r'^s_(and|or)_not1_saveexec_(b32|b64)$', r's_\1n2_saveexec_\2'),
    (r'^s_(and|or)_not0_saveexec_(b32|b64)$', r's_\1n1_saveexec_\2'),
    (r'^s_and_not0_wrexec_b64$', r's_andn1_wrexec_b64'),
    (r'^s_and_not1_wrexec_b64$', r's_andn2_wrexec_b64'),
    (r'^v_(add|sub|subrev)_nc_u32$', r'v_\1_u32'),
    (r'^v_(add|sub)_nc_(u16|i16)$', r'v_\1_\2'),
    (r'^v_add_co_ci_u32$', r'v_addc_co_u32'),
    (r'^v_sub_co_ci_u32$', r'v_subb_co_u32'),
    (r'^v_subrev_co_ci_u32$', r'v_subbrev_co_u32'),
    (r'^v_cvt_pk_norm_(i16|u16)_f16$', r'v_cvt_pknorm_\1_f16'),
]


def camel(name):
    return ''.join(p[:1].upper() + p[1:] for p in name.split('_'))


FORMAT = {'sop1': 'Sop1', 'sop2': 'Sop2', 'sopk': 'Sopk', 'sopc': 'Sopc', 'sopp': 'Sopp', 'smem': 'Smem',
          'vop1': 'Vop1', 'vop2': 'Vop2', 'vopc': 'Vopc', 'vop3': 'Vop3', 'vop3sd': 'Vop3sd', 'vop3p': 'Vop3p',
          'mai': 'Vop3p', 'vopd': 'Vopd', 'ds': 'Ds', 'flat': 'Flat', 'global': 'Global', 'scratch': 'Scratch',
          'mubuf': 'Mubuf'}


def hand_variants():
    """The hand-written entries of opcode.rs: (variant, GFX11 format, name, GFX9 format, name,
    gfx90a format, name), the gfx90a pair empty when the entry gives none (gfx942's then)."""
    src = open(os.path.join(HERE, '..', 'src', 'opcode.rs')).read()
    return re.findall(r'^\s*(\w+): \((\w+), "([^"]*)"\), \((\w+), "([^"]*)"\)(?:, \((\w+), "([^"]*)"\))?;', src, re.M)


def write_opcodes(rows11, rows9, rows90a):
    hand = hand_variants()
    taken11 = {h[2] for h in hand if h[2]}
    taken9 = {h[4] for h in hand if h[4]}
    fmt11 = {r.name: FORMAT[r.enc] for r in rows11}
    fmt9 = {r.name: FORMAT[r.enc] for r in rows9}
    fmt90a = {r.name: FORMAT[r.enc] for r in rows90a}
    for h in hand:
        if h[1] == 'Pseudo':
            continue
        n90a = h[6] if h[5] else h[4]
        for n, table in ((h[2], fmt11), (h[4], fmt9), (n90a, fmt90a)):
            if n and n not in table:
                raise SystemExit('hand-written opcode %s names %r, not in the table' % (h[0], n))
    used_names = {h[0] for h in hand}
    taken90a = {(h[6] if h[5] else h[4]) for h in hand} - {''}
    entries = []
    rest9 = [r.name for r in rows9 if r.name not in taken9]
    rest9set = set(rest9)
    paired9 = set()
    for r in rows11:
        if r.name in taken11:
            continue
        n9 = r.name if r.name in rest9set else ''
        if not n9:
            for pat, rep in RENAMES:
                if re.match(pat, r.name):
                    cand = re.sub(pat, rep, r.name)
                    if cand in rest9set and cand not in paired9 and FORMAT[r.enc] == fmt9[cand]:
                        n9 = cand
                    break
        if n9:
            paired9.add(n9)
        entries.append((camel(r.name), r.name, n9))
    for n in rest9:
        if n not in paired9:
            entries.append((camel(n), '', n))
    # gfx90a names gfx942's operations as gfx942 does; an operation gfx942 lacks is a variant
    # of gfx90a alone.
    entries = [(v, n11, n9, n9 if n9 in fmt90a else '') for v, n11, n9 in entries]
    named90a = taken90a | {e[3] for e in entries}
    entries += [(camel(r.name), '', '', r.name) for r in rows90a if r.name not in named90a]
    out = []
    for v, n11, n9, n90a in entries:
        if v in used_names:
            raise SystemExit('variant name %s taken twice (%s / %s / %s)' % (v, n11, n9, n90a))
        used_names.add(v)
        f11 = fmt11.get(n11, 'Pseudo') if n11 else (fmt9[n9] if n9 else fmt90a[n90a])
        f9 = fmt9.get(n9, 'Pseudo') if n9 else f11
        f90a = fmt90a.get(n90a, 'Pseudo') if n90a else f9
        names = ' and '.join('`%s` (%s)' % (n, t) for n, t in ((n11, 'gfx1100'), (n9, 'gfx942'), (n90a, 'gfx90a'))
                             if n and (t != 'gfx90a' or n != n9))
        line = '            /// %s.\n            %s: (%s, "%s"), (%s, "%s")' % (names, v, f11, n11, f9, n9)
        if n90a != n9:
            line += ', (%s, "%s")' % (f90a, n90a)
        out.append(line + ';')
    text = '''// Generated by isa/scripts/gen_tables.py from the opcode tables; do not edit.
//
// Every operation of isa/src/tables/{gfx1100,gfx942,gfx90a}.txt that the hand-written entries
// of opcode.rs do not name, one variant per operation (named after its GFX11 mnemonic, or its
// GFX9 one where GFX11 lacks it), with its format and name in each family; a third pair gives
// gfx90a's where it differs from gfx942's (an empty name: gfx90a lacks the operation).

/// Calls `$mac!` with the hand-written entries followed by the generated ones.
macro_rules! with_generated_opcodes {
    ($mac:ident { $($hand:tt)* }) => {
        $mac! {
            $($hand)*
%s
        }
    };
}
''' % '\n'.join(out)
    path = os.path.join(OUT, 'opcodes.rs')
    open(path, 'w').write(text)
    print('wrote %s (%d generated variants, %d hand-written)' % (path, len(out), len(hand)), file=sys.stderr)


if __name__ == '__main__':
    # --out DIR writes the tables elsewhere (isa/tests/tables.rs regenerates and compares)
    if len(sys.argv) == 3 and sys.argv[1] == '--out':
        OUT = sys.argv[2]
    os.makedirs(OUT, exist_ok=True)
    all_rows = {}
    for cpu, fam in TARGETS:
        all_rows[cpu] = generate(cpu, fam)
        write_table(cpu, fam, all_rows[cpu])
    write_opcodes(all_rows['gfx1100'], all_rows['gfx942'], all_rows['gfx90a'])

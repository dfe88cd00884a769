"""Step 2: turn each enumerated instruction's printed text into operand slots."""
import json, re, sys

REG = re.compile(r'^(v|s|a)(\d+)(?:\.(l|h))?$|^(v|s|a)\[(\d+):(\d+)\]$')

def split_ops(rest):
    """Top-level split at ', ' and the trailing space-separated modifiers."""
    parts, depth, cur = [], 0, ''
    i = 0
    while i < len(rest):
        c = rest[i]
        if c in '([': depth += 1
        if c in ')]': depth -= 1
        if depth == 0 and rest.startswith(', ', i):
            parts.append(cur); cur = ''; i += 2; continue
        cur += c; i += 1
    parts.append(cur)
    last = parts[-1]
    # modifiers follow the last operand after a space at depth 0
    depth, cut = 0, None
    for j, c in enumerate(last):
        if c in '([': depth += 1
        if c in ')]': depth -= 1
        if c == ' ' and depth == 0:
            cut = j; break
    mods = ''
    if cut is not None:
        parts[-1], mods = last[:cut], last[cut + 1:]
    return [p for p in parts if p != ''], mods

def strip_comment(s):
    return re.sub(r'/\*.*?\*/', '', s)

def reg_of(tok):
    m = REG.match(tok)
    if not m:
        return None
    if m.group(1):
        return (m.group(1), int(m.group(2)), 1, m.group(3))
    lo, hi = int(m.group(5)), int(m.group(6))
    return (m.group(4), lo, hi - lo + 1, None)

VALU = ('vop1', 'vop2', 'vopc', 'vop3', 'vop3p')
E64_BASE = {('gfx1100', 'vop1'): 0x180, ('gfx942', 'vop1'): 0x140, ('gfx1100', 'vop2'): 0x100, ('gfx942', 'vop2'): 0x100,
            ('gfx1100', 'vopc'): 0, ('gfx942', 'vopc'): 0}

def field_values(enc, var):
    """printed register -> field candidates"""
    vmap, smap, imap = {}, {}, {}
    for k, v in var.items():
        if k in ('src0', 'src1', 'src2'):
            if v >= 256: vmap[v - 256] = k
            elif v < 128 and v: smap[v] = k
        elif k in ('vdst', 'vsrc1', 'addr', 'data', 'data0', 'data1'):
            if v: vmap[v] = k
            if k == 'vdst' and v: smap[v] = k
        elif k in ('sdst', 'ssrc0', 'ssrc1', 'sdata', 'soffset'):
            if v: smap[v] = k
            if k in ('ssrc0', 'ssrc1', 'sdata') and v: imap[v] = k
        elif k == 'sbase':
            if v: smap[v << 1] = k
        elif k in ('simm16', 'offset'):
            imap[v] = k
    return vmap, smap, imap

def parse_int(t):
    try:
        return int(t, 0)
    except ValueError:
        return None

def parse_entry(cpu, e):
    """-> dict(name, enc, num, ops=[(role, field, file, size, note)], mods=str, sfx)"""
    enc, text, var = e['enc'], e['text'], e['variant']
    text = re.sub(r"/\*Invalid register, operand has '(\w+)' register class\*/", r"@\1", text)
    name, _, rest = text.partition(' ')
    sfx = None
    for s in ('_e32', '_e64'):
        if name.endswith(s):
            name, sfx = name[:-len(s)], s
    ops_txt, mods = split_ops(rest) if rest else ([], '')
    # An instruction without operands prints its modifiers only (`ds_gws_sema_v gds`).
    if ops_txt and re.match(r'^(offset\d?:|gds$|glc$|sc0$|sc1$|nt$)', ops_txt[0]):
        mods = ' '.join(ops_txt + ([mods] if mods else []))
        ops_txt = []
    vmap, smap, imap = field_values(enc, var)
    out = []
    for tok in ops_txt:
        note = None
        if '@' in tok:
            tok, note = tok.split('@')
        r = reg_of(tok)
        if r:
            f, n, size, half = r
            if f in ('v', 'a'):
                field = vmap.get(n)
            else:
                field = smap.get(n)
            if field is None and f == 'v' and n in smap.values():
                field = None
            out.append(['?', field, f, size, note, tok])
        elif tok in ('vcc', 'vcc_lo'):
            out.append(['?', 'vcc', 'm', 1, None, tok])
        elif tok == 'off':
            out.append(['?', 'off', 'off', 0, None, tok])
        else:
            v = parse_int(tok)
            field = imap.get(v) if v is not None else None
            if v == 0x12345678:
                field = 'lit'
            if field is None and enc in ('sopk', 'sopp'): field = 'simm16'
            if field is None and enc == 'sop1': field = 'ssrc0'
            if field is None and enc == 'sopc': field = 'ssrc1'
            out.append(['i', field, 'imm', 0, None, tok])
    return dict(name=name, enc=enc, num=e['op'], ops=out, mods=mods, sfx=sfx, text=text, var=var, length=e['length'])


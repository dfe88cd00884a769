"""llvm-mc-19 helpers for the table generator: batched disassembly and assembly."""
import subprocess, re
TRIPLE="-triple=amdgcn-amd-amdhsa"
def _run(args, inp):
    r=subprocess.run(["llvm-mc-19"]+args,input=inp,capture_output=True,text=True)
    return r.stdout, r.stderr
ENC=re.compile(r'^\s*(.*?)\s*(?://|;)\s*encoding: \[(.*)\]')
def disasm(cpu, probes, mattr=None):
    """Disassembles each probe (bytes) in one process: per probe, a list of (text, length) or
    None (an invalid 4-byte chunk) for the instructions it holds."""
    args=["--disassemble","--show-encoding",TRIPLE,"-mcpu="+cpu]
    if mattr: args.append("-mattr="+mattr)
    inp="".join(",".join("0x%02x"%b for b in p)+"\n" for p in probes)
    out,err=_run(args,inp)
    bad=set()
    for l in err.splitlines():
        m=re.match(r'<stdin>:(\d+):(\d+): warning: invalid instruction encoding',l)
        if m: bad.add((int(m.group(1))-1, int(m.group(2))))
    insts=[]
    for l in out.splitlines():
        m=ENC.match(l)
        if m:
            bs=[int(x,16) for x in m.group(2).split(",")] if m.group(2).strip() else []
            insts.append((m.group(1),bs))
    res=[]; it=iter(insts)
    # walk: for each probe, consume instructions until probe bytes covered. invalid-encoding warnings: column gives offset
    badlines={}
    for (ln,col) in bad: badlines.setdefault(ln,[]).append(col)
    for i,p in enumerate(probes):
        pos=0; first=None
        # each invalid warning consumes 4 bytes (llvm skips 4 bytes on gfx)
        cols=sorted(badlines.get(i,[]))
        # column of byte k = 1 + 5*k
        badpos=set((c-1)//5 for c in cols)
        items=[]
        while pos < len(p):
            if pos in badpos:
                items.append(None); pos+=4; continue
            t,bs=next(it)
            items.append((t,len(bs)))
            pos+=len(bs)
        res.append(items)
    return res

def asm(cpu, lines, mattr=None):
    """Assembles each line in one process: per line, (echo, bytes) or the error message."""
    args=["--show-encoding",TRIPLE,"-mcpu="+cpu]
    if mattr: args.append("-mattr="+mattr)
    out,err=_run(args,"".join(l+"\n" for l in lines))
    errs={}
    for l in err.splitlines():
        m=re.match(r'<stdin>:(\d+):\d+: error: (.*)',l)
        if m: errs.setdefault(int(m.group(1))-1, m.group(2))
    encs=[]
    for l in out.splitlines():
        m=ENC.match(l)
        if m: encs.append((m.group(1),[int(x,16) for x in m.group(2).split(",")]))
    it=iter(encs); res=[]
    for i,l in enumerate(lines):
        if i in errs: res.append(errs[i])
        else: res.append(next(it))
    return res

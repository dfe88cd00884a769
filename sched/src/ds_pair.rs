//! LDS access pairing, before register allocation: two `ds_load_b32` (or `_b64`) of one block
//! that read the same address register at constant offsets become one `ds_load_2addr_b32`
//! (gfx942's `ds_read2_b32`) and a split of its result, and two such stores one
//! `ds_store_2addr_b32` (`ds_write2_b32`), as LLVM's `SILoadStoreOptimizer` does. The
//! two-address forms hold each offset in an 8-bit field counted in elements, or in units of 64
//! elements in the `stride64` variants ([`isa::encoding::ds_pair_offsets`]); when neither fits
//! the offsets as they are, the address register plus the smaller offset (one
//! `v_add_nc_u32`, reused by the later pairs of the block whose offsets fit from it) is the
//! new base.
//!
//! A load pair issues where the first load was, a store pair where the second store was, so
//! nothing between them may make the move visible: for loads no LDS write, for stores no LDS
//! access at all, and for both nothing that orders memory, changes EXEC or is not plain code
//! (barriers, waits, cache operations, flat accesses, which may reach LDS, atomics of any
//! space, LDS DMA, pseudo-instructions other than tuple splits and concatenations). Each
//! access is matched against the one unpaired access before it with the same address register
//! and opcode, if nothing in between broke the chain (epoch counters, so breaking costs
//! nothing): one pass over each block with a dense table per temporary, linear in the function.

use isa::encoding::ds_pair_offsets;
use isa::mir::{CachePolicy, Def, Function, Inst, Operand};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegClass, Temp};

/// An access kind that pairs.
struct Kind {
    /// The single access.
    single: Opcode,
    /// Dwords per element.
    dwords: u8,
    /// The two-address form and its stride-64 variant.
    pair: [Opcode; 2],
    /// A store (else a load).
    store: bool,
}

/// The accesses paired.
const KINDS: [Kind; 4] = [
    Kind {
        single: Opcode::DsLoadB32,
        dwords: 1,
        pair: [Opcode::DsLoad2addrB32, Opcode::DsLoad2addrStride64B32],
        store: false,
    },
    Kind {
        single: Opcode::DsLoadB64,
        dwords: 2,
        pair: [Opcode::DsLoad2addrB64, Opcode::DsLoad2addrStride64B64],
        store: false,
    },
    Kind {
        single: Opcode::DsStoreB32,
        dwords: 1,
        pair: [Opcode::DsStore2addrB32, Opcode::DsStore2addrStride64B32],
        store: true,
    },
    Kind {
        single: Opcode::DsStoreB64,
        dwords: 2,
        pair: [Opcode::DsStore2addrB64, Opcode::DsStore2addrStride64B64],
        store: true,
    },
];

/// An access waiting for a partner: its index in the block and the epoch of its chain then.
#[derive(Copy, Clone)]
struct Open {
    index: usize,
    epoch: u64,
}

/// A new base register of a block: `temp = base + offset`, defined just before the
/// instruction at `at`.
#[derive(Copy, Clone)]
struct Rebase {
    block: usize,
    offset: u32,
    temp: Temp,
    at: usize,
}

/// What an instruction of the block becomes.
#[derive(Copy, Clone)]
enum Fate {
    Keep,
    /// The other half of a pair emitted elsewhere.
    Drop,
    /// The place of the pair whose instructions start at this index of the replacements.
    Pair(usize),
}

/// The state of the pass, reused across blocks.
struct Pairer {
    /// The open access of each address temporary and kind (`temp * KINDS.len() + kind`).
    open: Vec<Option<Open>>,
    /// The latest new base of each address temporary.
    rebases: Vec<Option<Rebase>>,
    /// The chains' epochs: loads (broken by LDS writes and anything opaque), stores (broken by
    /// any LDS access and anything opaque). Every block starts new ones.
    epochs: [u64; 2],
    /// Each instruction's fate in the current block.
    fate: Vec<Fate>,
    /// The instructions of the block's pairs, one to three each, in the order formed.
    replacements: Vec<Vec<Inst>>,
}

/// Pairs the LDS loads and stores of every block of `func`; returns how many pairs it formed.
pub fn pair_lds(func: &mut Function) -> usize {
    let temps = func.temps as usize;
    let mut pairer = Pairer {
        open: vec![None; temps * KINDS.len()],
        rebases: vec![None; temps],
        epochs: [0, 0],
        fate: Vec::new(),
        replacements: Vec::new(),
    };
    let mut formed = 0;
    for b in 0..func.blocks.len() {
        pairer.fate.clear();
        pairer.fate.resize(func.blocks[b].insts.len(), Fate::Keep);
        pairer.epochs = pairer.epochs.map(|e| e + 1);
        for i in 0..func.blocks[b].insts.len() {
            pairer.visit(func, b, i);
        }
        if pairer.replacements.is_empty() {
            continue;
        }
        formed += pairer.replacements.len();
        let old = std::mem::take(&mut func.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len() + pairer.replacements.len());
        for (inst, fate) in old.into_iter().zip(&pairer.fate) {
            match *fate {
                Fate::Keep => insts.push(inst),
                Fate::Drop => {}
                Fate::Pair(p) => insts.append(&mut pairer.replacements[p]),
            }
        }
        pairer.replacements.clear();
        func.blocks[b].insts = insts;
    }
    formed
}

impl Pairer {
    /// Looks at instruction `i` of block `b`: pairs it with the open access of its kind and
    /// address, or leaves it open, or breaks the chains it may not be moved across.
    fn visit(&mut self, func: &mut Function, b: usize, i: usize) {
        let inst = &func.blocks[b].insts[i];
        let Some((k, base)) = pairable(inst) else {
            if !transparent(inst, func.family) {
                self.epochs = self.epochs.map(|e| e + 1);
            }
            return;
        };
        let store = KINDS[k].store;
        let slot = base.id as usize * KINDS.len() + k;
        let open = self.open[slot].filter(|o| o.epoch == self.epochs[usize::from(store)]);
        // An LDS access breaks the store chain; a store breaks the load chain too.
        self.epochs[1] += 1;
        if store {
            self.epochs[0] += 1;
        }
        if let Some(open) = open {
            if self.try_pair(func, b, open.index, i, k, base) {
                self.open[slot] = None;
                return;
            }
        }
        self.open[slot] = Some(Open { index: i, epoch: self.epochs[usize::from(store)] });
    }

    /// Pairs accesses `first` and `second` of block `b` (kind `k`, address `base`) when their
    /// offsets fit the two-address form from `base`, from the block's latest new base of
    /// `base`, or from a new one; returns whether it did.
    fn try_pair(&mut self, func: &mut Function, b: usize, first: usize, second: usize, k: usize, base: Temp) -> bool {
        let kind = &KINDS[k];
        let insts = &func.blocks[b].insts;
        let (x, y) = (&insts[first], &insts[second]);
        let [a, c] = [x, y].map(|i| i.fields.offset as u32);
        let bytes = 4 * u32::from(kind.dwords);
        // A load pair issues at the first load, a store pair at the second store.
        let at = if kind.store { second } else { first };
        let reuse = self.rebases[base.id as usize].filter(|r| r.block == b && r.at < at);
        let (fields, addr, rebase) = if let Some(f) = ds_pair_offsets(a, c, bytes) {
            (f, base, None)
        } else if let Some((f, r)) = reuse.and_then(|r| {
            let f = ds_pair_offsets(a.checked_sub(r.offset)?, c.checked_sub(r.offset)?, bytes)?;
            Some((f, r))
        }) {
            (f, r.temp, None)
        } else {
            let low = a.min(c);
            let Some(f) = ds_pair_offsets(a - low, c - low, bytes) else { return false };
            let temp = func.new_temp(RegClass::V1);
            self.rebases[base.id as usize] = Some(Rebase { block: b, offset: low, temp, at });
            (f, temp, Some((temp, low)))
        };
        let insts = &func.blocks[b].insts;
        let (x, y) = (&insts[first], &insts[second]);
        let opcode = kind.pair[usize::from(fields.stride64)];
        let mut out = Vec::with_capacity(3);
        if let Some((temp, low)) = rebase {
            let add = [Operand::constant(low), Operand::temp(base)];
            out.push(Inst::new(Opcode::VAddNcU32, &[Def::temp(temp)], &add));
        }
        let whole = Temp { id: func.temps, rc: RegClass::vgpr(2 * kind.dwords) };
        let mut pair = if kind.store {
            Inst::new(opcode, &[], &[Operand::temp(addr), x.ops[1], y.ops[1]])
        } else {
            Inst::new(opcode, &[Def::temp(whole)], &[Operand::temp(addr)])
        };
        pair.fields.offset = fields.field;
        out.push(pair);
        if !kind.store {
            // The loads' own results, from the pair's: the first's is at offset0.
            let parts = [x.defs[0], y.defs[0]];
            out.push(Inst::new(Opcode::PSplitVector, &parts, &[Operand::temp(whole)]));
            func.temps += 1;
        }
        self.fate[first] = Fate::Drop;
        self.fate[second] = Fate::Drop;
        self.fate[at] = Fate::Pair(self.replacements.len());
        self.replacements.push(out);
        true
    }
}

/// The kind and address temporary of an access that may pair: a plain (no GDS, no cache
/// bits) `ds_load`/`ds_store` of 4 or 8 bytes at a non-negative offset, with its address and
/// value in VGPR temporaries of no fixed register.
fn pairable(inst: &Inst) -> Option<(usize, Temp)> {
    let k = KINDS.iter().position(|k| k.single == inst.opcode)?;
    let plain = !inst.fields.gds && inst.fields.cpol == CachePolicy::default() && inst.fields.offset >= 0;
    let free = inst.ops.iter().all(|o| o.reg.is_none() && o.temp_of().is_some())
        && inst.defs.iter().all(|d| d.reg.is_none() && d.temp.is_some());
    let base = inst.ops.first()?.temp_of()?;
    (plain && free && !base.rc.linear).then_some((k, base))
}

/// Whether an LDS access may move across `inst`: plain ALU code that does not write EXEC, a
/// split or concatenation of a tuple, or a scalar, global or scratch load or store without
/// cache bits (which never reaches LDS).
fn transparent(inst: &Inst, family: Family) -> bool {
    let exec = |r: Option<PhysReg>| matches!(r, Some(PhysReg::EXEC | PhysReg::EXEC_HI));
    if inst.defs.iter().any(|d| exec(d.reg)) {
        return false;
    }
    let name = inst.opcode.name(family);
    match inst.opcode.format(family) {
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => true,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Vop3p | Format::Vopd => {
            !name.starts_with("v_cmpx")
        }
        Format::Smem | Format::Global | Format::Scratch => {
            inst.fields.cpol == CachePolicy::default() && !name.contains("atomic") && !name.contains("lds")
        }
        Format::Pseudo => matches!(inst.opcode, Opcode::PSplitVector | Opcode::PCreateVector),
        Format::Sopp | Format::Ds | Format::Flat | Format::Mubuf => false,
    }
}

//! Random MIR functions, for testing the allocator beyond what instruction selection produces
//! today, for the benchmark, and for fuzzing: structured control flow shaped like isel's
//! (uniform ifs on SCC, divergent ifs with and without an else arm, each with its exec-mask
//! bookkeeping and its linear-only skip blocks, uniform loops with a break block and a
//! continue block), both CFGs consistent, phis and linear phis at joins and loop headers,
//! temporaries of classes s1, s2, s4, s8, v1, v2, v3, v4, v8 and linear VGPRs, kernel inputs
//! fixed in p_startpgm, values defined in and read from VCC, SCC and M0, implicit SCC and VCC
//! writes, memory instructions (whose results must not take their operands' registers), and
//! the vector pseudo-instructions. On request ([`Config::agprs`], for a gfx90a/gfx942 file),
//! AGPR values too: a1 to a16 tuples from matrix instructions, loads and
//! `v_accvgpr_write_b32`, read back with `v_accvgpr_read_b32`, copied between AGPRs and to and
//! from VGPRs, split, built, stored, and carried by phis.
//!
//! The instructions mean nothing: they have the shapes allocation cares about (classes, fixed
//! registers, what is read and written), not necessarily ones the encoder accepts. Every value
//! is defined before it is read on every path (SSA dominance holds), and no operand is read in
//! a fixed register that the same instruction overwrites and that outlives it.

use isa::mir::{Block, BlockKind, Def, Fields, Function, Inst, Operand};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};

/// What kind of functions to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Lanes per wave (32 or 64), which sets the lane-mask class.
    pub wave_size: u32,
    /// About how many instructions.
    pub size: usize,
    /// One block of straight-line code.
    pub straight_line: bool,
    /// Only single registers (s1 and v1), no special registers, no vector pseudo-instructions.
    pub single_registers: bool,
    /// About how many values may be readable at once (the register pressure).
    pub pressure: usize,
    /// How deeply ifs and loops nest.
    pub max_depth: u32,
    /// Whether to define linear VGPRs (which get registers of their own).
    pub linear_vgprs: bool,
    /// Whether to define AGPR values (for processors with AGPRs and AGPR-to-AGPR copies:
    /// gfx90a, gfx942).
    pub agprs: bool,
}

impl Config {
    /// Control flow nesting three deep, a pressure of 24 values, linear VGPRs.
    pub fn new(wave_size: u32, size: usize) -> Config {
        Config {
            wave_size,
            size,
            straight_line: false,
            single_registers: false,
            pressure: 24,
            max_depth: 3,
            linear_vgprs: true,
            agprs: false,
        }
    }
}

/// A splitmix64 generator: small, deterministic, no dependency.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` with the given weights.
    fn weighted<T: Copy>(&mut self, items: &[(T, usize)]) -> T {
        let total: usize = items.iter().map(|i| i.1).sum();
        let mut x = self.below(total);
        for &(item, w) in items {
            if x < w {
                return item;
            }
            x -= w;
        }
        items[0].0
    }
}

/// A branch whose target is set once the target block exists.
#[derive(Copy, Clone, Debug)]
struct Patch {
    block: usize,
    inst: usize,
}

struct Gen<'c> {
    rng: Rng,
    f: Function,
    c: &'c Config,
    /// The class of a lane mask.
    lm: RegClass,
    /// The block being filled.
    cur: usize,
    /// Values that may be read here.
    avail: Vec<Temp>,
    /// Instructions still to generate.
    budget: usize,
    uniform: bool,
    loop_depth: u32,
}

/// Generates function number `seed` of the kind `config` describes, for an encoding family.
pub fn function(seed: u64, family: Family, config: &Config) -> Function {
    let mut g = Gen {
        rng: Rng(seed ^ 0x005e_ed0f_a11c),
        f: Function::new(format!("gen{seed}"), family, config.wave_size),
        c: config,
        lm: RegClass::lane_mask(config.wave_size),
        cur: 0,
        avail: Vec::new(),
        budget: config.size,
        uniform: true,
        loop_depth: 0,
    };
    g.cur = g.new_block();
    g.start();
    while g.budget > 0 {
        g.region(0);
    }
    g.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
    g.emit(Inst::new(Opcode::SEndpgm, &[], &[]));
    g.f
}

impl Gen<'_> {
    fn emit(&mut self, inst: Inst) -> Patch {
        let block = &mut self.f.blocks[self.cur].insts;
        block.push(inst);
        self.budget = self.budget.saturating_sub(1);
        Patch { block: self.cur, inst: block.len() - 1 }
    }

    fn new_block(&mut self) -> usize {
        let kind = BlockKind { loop_header: false, uniform: self.uniform };
        self.f.blocks.push(Block { kind, loop_depth: self.loop_depth, ..Block::default() });
        self.f.blocks.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, logical: bool, linear: bool) {
        if logical {
            self.f.add_logical_edge(from as u32, to as u32);
        }
        if linear {
            self.f.add_linear_edge(from as u32, to as u32);
        }
    }

    fn branch(&mut self, op: Opcode, ops: &[Operand]) -> Patch {
        self.emit(Inst::new(op, &[], ops))
    }

    fn patch(&mut self, at: Patch, target: usize) {
        self.f.blocks[at.block].insts[at.inst].fields = Fields { target: Some(target as u32), ..Fields::default() };
    }

    /// Makes `b` the current block and opens its logical part.
    fn open(&mut self, b: usize) {
        self.cur = b;
        self.emit(Inst::new(Opcode::PLogicalStart, &[], &[]));
    }

    /// A new value of class `rc`, readable from here on; an old one may stop being readable
    /// when too many are.
    fn define(&mut self, rc: RegClass) -> Temp {
        let t = self.f.new_temp(rc);
        self.avail.push(t);
        if self.avail.len() > self.c.pressure {
            let old = self.rng.below(self.avail.len() - 1);
            self.avail.remove(old);
        }
        t
    }

    /// A readable value satisfying `ok`, favouring recent ones; sometimes its last read.
    fn pick(&mut self, ok: impl Fn(Temp) -> bool) -> Option<Temp> {
        let found: Vec<usize> = (0..self.avail.len()).filter(|&i| ok(self.avail[i])).collect();
        if found.is_empty() {
            return None;
        }
        let i = if self.rng.chance(60) {
            found[found.len() - 1 - self.rng.below(found.len().min(4))]
        } else {
            found[self.rng.below(found.len())]
        };
        let t = self.avail[i];
        if self.rng.chance(20) {
            self.avail.remove(i);
        }
        Some(t)
    }

    /// An operand satisfying `ok`, or a constant.
    fn operand(&mut self, ok: impl Fn(Temp) -> bool) -> Operand {
        match self.pick(ok) {
            Some(t) if !self.rng.chance(10) => Operand::temp(t),
            _ => Operand::constant(self.rng.below(100) as u32),
        }
    }

    /// An operand of an AGPR copy: a value satisfying `ok`, or an inline constant (an AGPR
    /// takes no literal).
    fn agpr_operand(&mut self, ok: impl Fn(Temp) -> bool) -> Operand {
        match self.pick(ok) {
            Some(t) if !self.rng.chance(10) => Operand::temp(t),
            _ => Operand::constant(self.rng.below(65) as u32),
        }
    }

    fn vgpr_class(&mut self) -> RegClass {
        if self.c.single_registers {
            return RegClass::V1;
        }
        let size = self.rng.weighted(&[(1, 60), (2, 15), (3, 8), (4, 10), (8, 7)]);
        RegClass::vgpr(size)
    }

    fn sgpr_class(&mut self) -> RegClass {
        if self.c.single_registers {
            return RegClass::S1;
        }
        RegClass::sgpr(self.rng.weighted(&[(1, 60), (2, 25), (4, 12), (8, 3)]))
    }

    fn agpr_class(&mut self) -> RegClass {
        RegClass::agpr(self.rng.weighted(&[(1, 30), (2, 15), (4, 35), (8, 12), (16, 8)]))
    }

    fn is_agpr(t: Temp) -> bool {
        t.rc.ty == RegType::Agpr
    }

    fn linear_vgpr(t: Temp) -> bool {
        t.rc.ty == RegType::Vgpr && t.rc.linear
    }

    fn is_sgpr(t: Temp) -> bool {
        t.rc.ty == RegType::Sgpr
    }

    fn scc() -> Def {
        Def::phys(PhysReg::SCC, RegClass::S1)
    }

    /// p_startpgm: the kernel's inputs in their fixed registers.
    fn start(&mut self) {
        let defs = if self.c.single_registers {
            vec![(RegClass::S1, PhysReg::sgpr(0)), (RegClass::S1, PhysReg::sgpr(1)), (RegClass::V1, PhysReg::vgpr(0))]
        } else {
            let group = if self.rng.chance(50) { 2 } else { 15 };
            vec![
                (RegClass::S2, PhysReg::sgpr(0)),
                (RegClass::S1, PhysReg::sgpr(group)),
                (RegClass::V1, PhysReg::vgpr(0)),
            ]
        };
        let defs: Vec<Def> = defs.into_iter().map(|(rc, r)| Def::fixed(self.define(rc), r)).collect();
        self.emit(Inst::new(Opcode::PStartPgm, &defs, &[]));
        self.emit(Inst::new(Opcode::PLogicalStart, &[], &[]));
    }

    /// A sequence of instructions and control-flow structures in the current (open) block;
    /// ends in an open block.
    fn region(&mut self, depth: u32) {
        for _ in 0..1 + self.rng.below(4) {
            if self.budget == 0 {
                return;
            }
            if !self.c.straight_line && depth < self.c.max_depth && self.rng.chance(30) {
                match self.rng.below(4) {
                    0 => self.uniform_if(depth),
                    1 => self.divergent_if(depth, true),
                    2 => self.divergent_if(depth, false),
                    _ => self.uniform_loop(depth),
                }
            } else {
                for _ in 0..1 + self.rng.below(6) {
                    self.instruction();
                }
            }
        }
    }

    /// An instruction that defines or reads AGPRs.
    fn agpr_instruction(&mut self) {
        let single = self.c.single_registers;
        match self.rng.below(if single { 3 } else { 7 }) {
            0 => {
                // Into an AGPR from a VGPR, an SGPR or an inline constant.
                let src = self.agpr_operand(|t| t.rc.size == 1 && !Self::is_agpr(t) && !Self::linear_vgpr(t));
                let d = self.define(RegClass::agpr(1));
                self.emit(Inst::new(Opcode::VAccvgprWriteB32, &[Def::temp(d)], &[src]));
            }
            1 => {
                // Out of an AGPR into a VGPR.
                let Some(a) = self.pick(|t| t.rc == RegClass::agpr(1)) else { return };
                let d = self.define(RegClass::V1);
                self.emit(Inst::new(Opcode::VAccvgprReadB32, &[Def::temp(d)], &[Operand::temp(a)]));
            }
            2 => {
                // Copies: AGPRs to AGPRs or VGPRs, VGPRs and SGPRs to AGPRs (one pair at a
                // time in single-register code, as its other copies).
                let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
                let pairs = if single { 1 } else { 1 + self.rng.below(3) };
                let sources: Vec<Temp> = (0..pairs)
                    .filter_map(|_| self.pick(|t| !Self::linear_vgpr(t) && (Self::is_agpr(t) || t.rc.size == 1)))
                    .collect();
                for src in sources {
                    let rc = match src.rc.ty {
                        RegType::Agpr if self.rng.chance(30) => RegClass::vgpr(src.rc.size),
                        RegType::Agpr => src.rc,
                        _ => RegClass::agpr(1),
                    };
                    let d = self.define(rc);
                    copy.defs.push(Def::temp(d));
                    copy.ops.push(Operand::temp(src));
                }
                if !copy.defs.is_empty() {
                    self.emit(copy);
                }
            }
            3 => {
                // A matrix instruction: VGPR sources, an AGPR accumulator of the result's size.
                let (op, size) = if self.rng.chance(75) {
                    (Opcode::VMfmaF324x4x116bF32, 4)
                } else {
                    (Opcode::VMfmaF3216x16x4F32, 16)
                };
                let (a, b) = (self.operand(|t| t.rc == RegClass::V1), self.operand(|t| t.rc == RegClass::V1));
                let acc = self.operand(|t| t.rc == RegClass::agpr(size));
                let d = self.define(RegClass::agpr(size));
                self.emit(Inst::new(op, &[Def::temp(d)], &[a, b, acc]));
            }
            4 => {
                // A load into AGPRs (gfx90a+), or a store of them.
                let addr = self.operand(|t| t.rc == RegClass::V2);
                if self.rng.chance(60) {
                    let rc = self.agpr_class();
                    let d = self.define(rc);
                    self.emit(Inst::new(Opcode::GlobalLoadB128, &[Def::temp(d)], &[addr]));
                } else {
                    let data = self.operand(Self::is_agpr);
                    self.emit(Inst::new(Opcode::GlobalStoreB128, &[], &[addr, data]));
                }
            }
            5 => {
                // Split an AGPR tuple.
                let Some(src) = self.pick(|t| Self::is_agpr(t) && t.rc.size > 1) else { return };
                let mut defs = Vec::new();
                let mut left = src.rc.size;
                while left > 0 {
                    let size = if left >= 4 && self.rng.chance(30) { 4 } else { 1 };
                    defs.push(Def::temp(self.define(RegClass::agpr(size))));
                    left -= size;
                }
                self.emit(Inst::new(Opcode::PSplitVector, &defs, &[Operand::temp(src)]));
            }
            _ => {
                // Build an AGPR tuple from single AGPRs.
                let size = [2, 4, 8][self.rng.below(3)];
                let ops: Vec<Operand> = (0..size).map(|_| self.agpr_operand(|t| t.rc == RegClass::agpr(1))).collect();
                let d = self.define(RegClass::agpr(size));
                self.emit(Inst::new(Opcode::PCreateVector, &[Def::temp(d)], &ops));
            }
        }
    }

    fn instruction(&mut self) {
        let lm = self.lm;
        let wave64 = self.c.wave_size == 64;
        if self.c.agprs && self.rng.chance(25) {
            self.agpr_instruction();
            return;
        }
        if self.c.single_registers {
            match self.rng.below(3) {
                0 => {
                    let ops: Vec<Operand> = (0..1 + self.rng.below(3)).map(|_| self.operand(|_| true)).collect();
                    let d = self.define(RegClass::V1);
                    self.emit(Inst::new(Opcode::VAddNcU32, &[Def::temp(d)], &ops));
                }
                1 => {
                    let ops = [self.operand(Self::is_sgpr), self.operand(Self::is_sgpr)];
                    let d = self.define(RegClass::S1);
                    self.emit(Inst::new(Opcode::SAddU32, &[Def::temp(d), Self::scc()], &ops));
                }
                _ => {
                    let src = self.operand(|_| true);
                    let rc = match src.temp_of() {
                        Some(t) if t.rc.ty == RegType::Sgpr && self.rng.chance(50) => RegClass::S1,
                        _ => RegClass::V1,
                    };
                    let d = self.define(rc);
                    self.emit(Inst::new(Opcode::PParallelCopy, &[Def::temp(d)], &[src]));
                }
            }
            return;
        }
        match self.rng.below(16) {
            0 | 1 => {
                // VALU.
                let rc = if self.rng.chance(80) { RegClass::V1 } else { RegClass::V2 };
                let ops: Vec<Operand> = (0..1 + self.rng.below(3)).map(|_| self.operand(|_| true)).collect();
                let d = self.define(rc);
                let op = if rc.size == 2 { Opcode::VLshlrevB64 } else { Opcode::VAddNcU32 };
                self.emit(Inst::new(op, &[Def::temp(d)], &ops));
            }
            2 | 3 => {
                // SALU, writing SCC.
                let rc = if self.rng.chance(75) { RegClass::S1 } else { RegClass::S2 };
                let ops = [self.operand(Self::is_sgpr), self.operand(Self::is_sgpr)];
                let d = self.define(rc);
                let op = if rc.size == 2 { Opcode::SAndB64 } else { Opcode::SAddU32 };
                self.emit(Inst::new(op, &[Def::temp(d), Self::scc()], &ops));
            }
            4 => {
                // Copies: several at once, sometimes from SGPRs into VGPRs.
                let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
                let sources: Vec<Temp> =
                    (0..1 + self.rng.below(3)).filter_map(|_| self.pick(|t| !Self::linear_vgpr(t))).collect();
                for src in sources {
                    let rc = if src.rc == RegClass::S1 && self.rng.chance(40) { RegClass::V1 } else { src.rc };
                    let d = self.define(rc);
                    copy.defs.push(Def::temp(d));
                    copy.ops.push(Operand::temp(src));
                }
                if !copy.defs.is_empty() {
                    self.emit(copy);
                }
            }
            5 => {
                // A vector load from a VGPR pair address: the result must not take it.
                let rc = self.vgpr_class();
                let addr = self.operand(|t| t.rc == RegClass::V2);
                let d = self.define(rc);
                self.emit(Inst::new(Opcode::GlobalLoadB128, &[Def::temp(d)], &[addr]));
            }
            6 => {
                // A scalar load from an SGPR pair.
                let rc = self.sgpr_class();
                let base = self.operand(|t| t.rc == RegClass::S2);
                let d = self.define(rc);
                self.emit(Inst::new(Opcode::SLoadB128, &[Def::temp(d)], &[base]));
            }
            7 => {
                // A store: reads only.
                let addr = self.operand(|t| t.rc == RegClass::V2);
                let data = self.operand(|t| t.rc.ty == RegType::Vgpr);
                self.emit(Inst::new(Opcode::GlobalStoreB128, &[], &[addr, data]));
            }
            8 => {
                // Split a tuple into parts.
                let Some(src) = self.pick(|t| t.rc.size > 1 && !Self::linear_vgpr(t)) else { return };
                let mut defs = Vec::new();
                let mut left = src.rc.size;
                while left > 0 {
                    let size = if left >= 2 && src.rc.ty == RegType::Vgpr && self.rng.chance(30) { 2 } else { 1 };
                    let d = self.define(RegClass { size, ..src.rc });
                    defs.push(Def::temp(d));
                    left -= size;
                }
                self.emit(Inst::new(Opcode::PSplitVector, &defs, &[Operand::temp(src)]));
            }
            9 => {
                // Build a tuple from parts.
                let (ty, size) = if self.rng.chance(70) {
                    (RegType::Vgpr, [2, 3, 4, 8][self.rng.below(4)])
                } else {
                    (RegType::Sgpr, [2, 4][self.rng.below(2)])
                };
                let mut ops = Vec::new();
                for _ in 0..size {
                    ops.push(self.operand(|t| t.rc.ty == ty && t.rc.size == 1 && !Self::linear_vgpr(t)));
                }
                let rc = if ty == RegType::Sgpr { RegClass::sgpr(size) } else { RegClass::vgpr(size) };
                let d = self.define(rc);
                self.emit(Inst::new(Opcode::PCreateVector, &[Def::temp(d)], &ops));
            }
            10 => {
                // A carry chain through VCC, as isel's 64-bit adds: the carry lives in VCC from
                // one instruction to the next, which overwrites VCC.
                let (a, b) = (self.operand(|_| true), self.operand(|t| t.rc == RegClass::V1));
                let lo = self.define(RegClass::V1);
                let carry = self.f.new_temp(lm);
                self.emit(Inst::new(Opcode::VAddCoU32, &[Def::temp(lo), Def::fixed(carry, PhysReg::VCC)], &[a, b]));
                if self.rng.chance(50) {
                    let x = self.operand(|_| true);
                    let d = self.define(RegClass::V1);
                    self.emit(Inst::new(Opcode::VAddNcU32, &[Def::temp(d)], &[x]));
                }
                let (c, d) = (self.operand(|_| true), self.operand(|t| t.rc == RegClass::V1));
                let hi = self.define(RegClass::V1);
                let vcc = Def::phys(PhysReg::VCC, lm);
                self.emit(Inst::new(
                    Opcode::VAddCoCiU32,
                    &[Def::temp(hi), vcc],
                    &[c, d, Operand::fixed(carry, PhysReg::VCC)],
                ));
            }
            11 => {
                // A compare into VCC whose mask stays readable (moved out when VCC is needed).
                let (a, b) = (self.operand(|_| true), self.operand(|t| t.rc == RegClass::V1));
                let m = self.define(lm);
                self.emit(Inst::new(Opcode::VCmpGtU32, &[Def::fixed(m, PhysReg::VCC)], &[a, b]));
            }
            12 => {
                // A lane mask read from VCC (moved there first).
                let Some(m) = self.pick(|t| t.rc == lm) else { return };
                let (a, b) = (self.operand(|_| true), self.operand(|t| t.rc == RegClass::V1));
                let d = self.define(RegClass::V1);
                self.emit(Inst::new(Opcode::VCndmaskB32, &[Def::temp(d)], &[a, b, Operand::fixed(m, PhysReg::VCC)]));
            }
            13 => {
                // A condition in SCC, maybe across SCC writes, read from SCC.
                let x = self.operand(Self::is_sgpr);
                let c = self.define(RegClass::S1);
                self.emit(Inst::new(Opcode::SCmpLgU32, &[Def::fixed(c, PhysReg::SCC)], &[x, Operand::constant(0)]));
                for _ in 0..self.rng.below(2) {
                    let ops = [self.operand(Self::is_sgpr), self.operand(Self::is_sgpr)];
                    let d = self.define(RegClass::S1);
                    self.emit(Inst::new(Opcode::SAddU32, &[Def::temp(d), Self::scc()], &ops));
                }
                let ops = [self.operand(Self::is_sgpr), self.operand(Self::is_sgpr)];
                let d = self.define(RegClass::S1);
                self.emit(Inst::new(
                    Opcode::SCselectB32,
                    &[Def::temp(d)],
                    &[ops[0], ops[1], Operand::fixed(c, PhysReg::SCC)],
                ));
            }
            14 => {
                // A lane select in M0; or a 64-bit multiply-add (no overlap on GFX11).
                if self.rng.chance(50) {
                    let Some(lane) = self.pick(|t| t.rc == RegClass::S1) else { return };
                    let v = self.operand(|t| t.rc == RegClass::V1);
                    let d = self.define(RegClass::S1);
                    self.emit(Inst::new(
                        Opcode::VReadlaneB32,
                        &[Def::temp(d)],
                        &[v, Operand::fixed(lane, PhysReg::M0)],
                    ));
                } else {
                    let ops = [
                        self.operand(|t| t.rc == RegClass::V1),
                        self.operand(|t| t.rc == RegClass::V1),
                        self.operand(|t| t.rc == RegClass::V2),
                    ];
                    let d = self.define(RegClass::V2);
                    let carry = self.define(lm);
                    self.emit(Inst::new(Opcode::VMadU64U32, &[Def::temp(d), Def::temp(carry)], &ops));
                }
            }
            _ => {
                // Lane-mask logic, or a linear VGPR.
                if self.rng.chance(70) || !self.c.linear_vgprs {
                    let ops = [self.operand(|t| t.rc == lm), self.operand(|t| t.rc == lm)];
                    let d = self.define(lm);
                    let op = if wave64 { Opcode::SAndB64 } else { Opcode::SAndB32 };
                    self.emit(Inst::new(op, &[Def::temp(d), Self::scc()], &ops));
                } else {
                    let x = self.operand(|t| t.rc == RegClass::V1);
                    let size = 1 + self.rng.below(2) as u8;
                    let d = self.define(RegClass::linear_vgpr(size));
                    self.emit(Inst::new(Opcode::VMovB32, &[Def::temp(d)], &[x]));
                }
            }
        }
    }

    /// Phis at the start of join `j`: VGPR phis over the logical predecessors, SGPR ones over
    /// the linear predecessors, each operand readable at the end of its predecessor.
    fn phis(&mut self, logical: &[Vec<Temp>], linear: &[Vec<Temp>]) {
        for (sets, vgprs) in [(logical, true), (linear, false)] {
            if sets.is_empty() {
                continue;
            }
            for _ in 0..self.rng.below(4) {
                let ok = |t: Temp| (t.rc.ty != RegType::Sgpr) == vgprs && !Self::linear_vgpr(t);
                let Some(&first) = sets[0].iter().rev().filter(|&&t| ok(t)).nth(self.rng.below(3)) else { continue };
                let rc = first.rc;
                let mut ops = vec![Operand::temp(first)];
                for set in &sets[1..] {
                    let same: Vec<Temp> = set.iter().copied().filter(|t| t.rc == rc).collect();
                    ops.push(match self.rng.below(10) {
                        0 if rc.size == 1 => Operand::constant(self.rng.below(64) as u32),
                        1 => Operand { kind: isa::mir::OperandKind::Undef(rc), reg: None, kill: false },
                        _ if !same.is_empty() => Operand::temp(same[self.rng.below(same.len())]),
                        _ => Operand { kind: isa::mir::OperandKind::Undef(rc), reg: None, kill: false },
                    });
                }
                let d = self.define(rc);
                let op = if vgprs { Opcode::PPhi } else { Opcode::PLinearPhi };
                self.emit(Inst::new(op, &[Def::temp(d)], &ops));
            }
        }
    }

    /// `if (uniform) {..} else {..}` on SCC: both CFGs alike.
    fn uniform_if(&mut self, depth: u32) {
        let x = self.operand(Self::is_sgpr);
        let c = self.f.new_temp(RegClass::S1);
        self.emit(Inst::new(Opcode::SCmpLgU32, &[Def::fixed(c, PhysReg::SCC)], &[x, Operand::constant(0)]));
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let b = self.cur;
        let to_else = self.branch(Opcode::PCbranchScc0, &[Operand::fixed(c, PhysReg::SCC)]);
        let outer = self.avail.clone();
        let arm = |g: &mut Self| {
            g.region(depth + 1);
            let end = (g.cur, g.avail.clone());
            g.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
            let br = g.branch(Opcode::PBranch, &[]);
            g.avail = outer.clone();
            (end, br)
        };
        let t = self.new_block();
        self.edge(b, t, true, true);
        self.open(t);
        let ((t_end, t_avail), t_br) = arm(self);
        let e = self.new_block();
        self.edge(b, e, true, true);
        self.patch(to_else, e);
        self.open(e);
        let ((e_end, e_avail), e_br) = arm(self);
        let j = self.new_block();
        self.patch(t_br, j);
        self.patch(e_br, j);
        self.edge(t_end, j, true, true);
        self.edge(e_end, j, true, true);
        self.cur = j;
        let sides = [t_avail, e_avail];
        self.phis(&sides, &sides);
        self.emit(Inst::new(Opcode::PLogicalStart, &[], &[]));
    }

    /// `if (divergent) {..} [else {..}]` with exec masking: the then arm, a linear-only block
    /// for the lanes skipping it, (an invert block, the else arm, its skip block,) the join.
    fn divergent_if(&mut self, depth: u32, with_else: bool) {
        let lm = self.lm;
        let wave64 = self.c.wave_size == 64;
        let exec = Operand::phys(PhysReg::EXEC, lm);
        let exec_def = Def::phys(PhysReg::EXEC, lm);
        let x = self.operand(|_| true);
        let cond = self.f.new_temp(lm);
        let mut cmp = Inst::new(Opcode::VCmpGtU32, &[Def::temp(cond)], &[x, Operand::constant(7)]);
        cmp.vop3 = true;
        self.emit(cmp);
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let saved = self.f.new_temp(lm);
        let saveexec = if wave64 { Opcode::SAndSaveexecB64 } else { Opcode::SAndSaveexecB32 };
        self.emit(Inst::new(saveexec, &[Def::temp(saved), exec_def, Self::scc()], &[Operand::temp(cond), exec]));
        let b = self.cur;
        let to_skip = self.branch(Opcode::PCbranchExecz, &[exec]);
        let outer = self.avail.clone();
        let was_uniform = std::mem::replace(&mut self.uniform, false);

        let t = self.new_block();
        self.edge(b, t, true, true);
        self.open(t);
        self.region(depth + 1);
        let (t_end, t_avail) = (self.cur, std::mem::replace(&mut self.avail, outer.clone()));
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let t_br = self.branch(Opcode::PBranch, &[]);
        let skip = self.new_block();
        self.edge(b, skip, false, true);
        self.patch(to_skip, skip);
        self.cur = skip;
        let skip_br = self.branch(Opcode::PBranch, &[]);

        let j;
        if with_else {
            let inv = self.new_block();
            self.patch(t_br, inv);
            self.patch(skip_br, inv);
            self.edge(t_end, inv, false, true);
            self.edge(skip, inv, false, true);
            self.cur = inv;
            let andn2 = if wave64 { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
            self.emit(Inst::new(andn2, &[exec_def, Self::scc()], &[Operand::temp(saved), exec]));
            let to_eskip = self.branch(Opcode::PCbranchExecz, &[exec]);
            let e = self.new_block();
            self.edge(inv, e, false, true);
            self.edge(b, e, true, false);
            self.open(e);
            self.region(depth + 1);
            let (e_end, e_avail) = (self.cur, std::mem::replace(&mut self.avail, outer.clone()));
            self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
            let e_br = self.branch(Opcode::PBranch, &[]);
            let eskip = self.new_block();
            self.edge(inv, eskip, false, true);
            self.patch(to_eskip, eskip);
            self.cur = eskip;
            let eskip_br = self.branch(Opcode::PBranch, &[]);
            self.uniform = was_uniform;
            j = self.new_block();
            self.patch(e_br, j);
            self.patch(eskip_br, j);
            self.edge(t_end, j, true, false);
            self.edge(e_end, j, true, true);
            self.edge(eskip, j, false, true);
            self.cur = j;
            self.phis(&[t_avail, e_avail.clone()], &[e_avail, outer]);
        } else {
            self.uniform = was_uniform;
            j = self.new_block();
            self.patch(t_br, j);
            self.patch(skip_br, j);
            self.edge(t_end, j, true, true);
            self.edge(b, j, true, false);
            self.edge(skip, j, false, true);
            self.cur = j;
            self.phis(&[], &[t_avail, outer]);
        }
        let or = if wave64 { Opcode::SOrB64 } else { Opcode::SOrB32 };
        self.emit(Inst::new(or, &[exec_def, Self::scc()], &[exec, Operand::temp(saved)]));
        self.emit(Inst::new(Opcode::PLogicalStart, &[], &[]));
    }

    /// `do {..} while (uniform)`: preheader, header with phis, body, a block ending in the
    /// condition, a continue block (the back edge) and a break block into the exit.
    fn uniform_loop(&mut self, depth: u32) {
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let pre = self.cur;
        let pre_br = self.branch(Opcode::PBranch, &[]);
        self.loop_depth += 1;
        let h = self.new_block();
        self.f.blocks[h].kind.loop_header = true;
        self.edge(pre, h, true, true);
        self.patch(pre_br, h);
        self.cur = h;
        let mut carried = Vec::new();
        let inits: Vec<Temp> = (0..self.rng.below(4)).filter_map(|_| self.pick(|t| !Self::linear_vgpr(t))).collect();
        for init in inits {
            let d = self.define(init.rc);
            let op = if init.rc.ty == RegType::Sgpr { Opcode::PLinearPhi } else { Opcode::PPhi };
            let undef = Operand { kind: isa::mir::OperandKind::Undef(init.rc), reg: None, kill: false };
            carried.push(self.emit(Inst::new(op, &[Def::temp(d)], &[Operand::temp(init), undef])));
        }
        self.emit(Inst::new(Opcode::PLogicalStart, &[], &[]));
        self.region(depth + 1);
        for at in carried {
            let rc = self.f.blocks[at.block].insts[at.inst].defs[0].rc;
            if let Some(next) = self.pick(|t| t.rc == rc) {
                self.f.blocks[at.block].insts[at.inst].ops[1] = Operand::temp(next);
            }
        }
        let x = self.operand(Self::is_sgpr);
        let c = self.f.new_temp(RegClass::S1);
        self.emit(Inst::new(Opcode::SCmpLgU32, &[Def::fixed(c, PhysReg::SCC)], &[x, Operand::constant(0)]));
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let cond = self.cur;
        let to_break = self.branch(Opcode::PCbranchScc0, &[Operand::fixed(c, PhysReg::SCC)]);
        let cont = self.new_block();
        self.edge(cond, cont, true, true);
        self.open(cont);
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let back = self.branch(Opcode::PBranch, &[]);
        self.patch(back, h);
        self.edge(cont, h, true, true);
        self.loop_depth -= 1;
        let brk = self.new_block();
        self.edge(cond, brk, true, true);
        self.patch(to_break, brk);
        self.open(brk);
        self.emit(Inst::new(Opcode::PLogicalEnd, &[], &[]));
        let out = self.branch(Opcode::PBranch, &[]);
        let exit = self.new_block();
        self.edge(brk, exit, true, true);
        self.patch(out, exit);
        self.open(exit);
    }
}

//! The kernarg segment: where each explicit argument goes, and the hidden (implicit) arguments
//! the runtime fills after them. Code object V5/V6 have a 256-byte hidden block with fixed
//! slots (NEW:3847-3920 name them; the offsets are checked against clang-19, see the digest);
//! V4 has the older 56-byte block of 8-byte slots (NEW:15456).
//!
//! clang-19 rules this follows: explicit arguments at their natural alignment; the hidden
//! block starts at the explicit end aligned to 8; the segment size is rounded up to 4 (LLVM's
//! `getKernArgSegmentSize`, not in the seeds: a lone `char` argument gives a 4-byte segment);
//! the segment alignment is at least 4, and 8 with hidden arguments. A kernel that reads no
//! hidden argument gets no hidden block at all (clang-19 drops it), which
//! [`KernargLayout::with_hidden`] with an empty list gives.

use crate::metadata::AddressSpace;

/// A code-object version (EI_ABIVERSION and metadata `amdhsa.version`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodeObjectVersion {
    /// V4: EI_ABIVERSION 2, metadata [1, 1].
    V4,
    /// V5, the default: EI_ABIVERSION 3, metadata [1, 2].
    V5,
    /// V6: EI_ABIVERSION 4, metadata [1, 2] (as clang-19 writes; the seeds give no V6 value).
    V6,
}

impl CodeObjectVersion {
    /// The version's number: 4, 5 or 6.
    pub fn number(self) -> u8 {
        match self {
            CodeObjectVersion::V4 => 4,
            CodeObjectVersion::V5 => 5,
            CodeObjectVersion::V6 => 6,
        }
    }

    /// EI_ABIVERSION for ELFOSABI_AMDGPU_HSA (NEW:1637).
    pub fn abi_version(self) -> u8 {
        match self {
            CodeObjectVersion::V4 => 2,
            CodeObjectVersion::V5 => 3,
            CodeObjectVersion::V6 => 4,
        }
    }

    /// The version whose EI_ABIVERSION is `abi_version`.
    pub fn from_abi_version(abi_version: u8) -> Option<CodeObjectVersion> {
        match abi_version {
            2 => Some(CodeObjectVersion::V4),
            3 => Some(CodeObjectVersion::V5),
            4 => Some(CodeObjectVersion::V6),
            _ => None,
        }
    }

    /// The metadata's `amdhsa.version`: V6 keeps V5's [1, 2], as clang-19 writes it.
    pub fn metadata_version(self) -> [u32; 2] {
        match self {
            CodeObjectVersion::V4 => [1, 1],
            CodeObjectVersion::V5 | CodeObjectVersion::V6 => [1, 2],
        }
    }

    /// Whether the 256-byte V5 hidden block (and the V5 metadata keys) apply.
    pub fn has_v5_abi(self) -> bool {
        self >= CodeObjectVersion::V5
    }
}

/// What an explicit argument is, as the metadata's `.value_kind` needs it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// Passed by value in the kernarg segment.
    ByValue,
    /// A pointer to a buffer in `address_space` (global or constant).
    GlobalBuffer {
        /// The address space of the pointee.
        address_space: AddressSpace,
    },
    /// A pointer into dynamically allocated LDS (`__local` OpenCL parameter).
    DynamicSharedPointer {
        /// The pointee's alignment in bytes.
        pointee_align: u32,
    },
    /// An image object.
    Image,
    /// A sampler object.
    Sampler,
    /// A pipe.
    Pipe,
    /// A device-enqueue queue.
    Queue,
}

/// An explicit kernel argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExplicitArg {
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes (a power of two).
    pub align: u32,
    /// What it is.
    pub kind: ArgKind,
    /// The source name (`.name`), if any.
    pub name: Option<String>,
    /// The source type (`.type_name`), if any.
    pub type_name: Option<String>,
}

/// A hidden (implicit) kernel argument.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HiddenArg {
    /// Work-groups in X (u32; V5+).
    BlockCountX,
    /// Work-groups in Y (u32; V5+).
    BlockCountY,
    /// Work-groups in Z (u32; V5+).
    BlockCountZ,
    /// Work-group size X (u16; V5+).
    GroupSizeX,
    /// Work-group size Y (u16; V5+).
    GroupSizeY,
    /// Work-group size Z (u16; V5+).
    GroupSizeZ,
    /// Size of the partial last work-group in X, or 0 (u16; V5+).
    RemainderX,
    /// Same for Y.
    RemainderY,
    /// Same for Z.
    RemainderZ,
    /// The global offset X (u64).
    GlobalOffsetX,
    /// The global offset Y (u64).
    GlobalOffsetY,
    /// The global offset Z (u64).
    GlobalOffsetZ,
    /// Grid dimensions 1-3 (u16; V5+).
    GridDims,
    /// The printf buffer pointer.
    PrintfBuffer,
    /// The hostcall buffer pointer.
    HostcallBuffer,
    /// The multigrid synchronisation argument.
    MultigridSyncArg,
    /// The heap pointer (V5+).
    HeapV1,
    /// The default device-enqueue queue.
    DefaultQueue,
    /// The device-enqueue completion action.
    CompletionAction,
    /// Dynamic LDS bytes (u32; V5+).
    DynamicLdsSize,
    /// High half of the private aperture (u32; V5+, GFX8 only).
    PrivateBase,
    /// High half of the shared aperture (u32; V5+, GFX8 only).
    SharedBase,
    /// The queue pointer (V5+; needed only before GFX9).
    QueuePtr,
    /// A reserved slot (`hidden_none`): V4 lists the unused slots of its block as these.
    Unused,
}

/// The V5 slots: offset from the hidden block's start and size. The seeds name the kinds but
/// give no offsets; these are the digest's (section 4), and clang-19 agrees on every one it
/// emits (tests/clang_oracle.rs compiles at -O0 to see them all). Not checked: printf buffer,
/// dynamic LDS size, private and shared base, which clang-19 does not emit for these kernels.
const V5_SLOTS: [(HiddenArg, u32, u32); 23] = [
    (HiddenArg::BlockCountX, 0, 4),
    (HiddenArg::BlockCountY, 4, 4),
    (HiddenArg::BlockCountZ, 8, 4),
    (HiddenArg::GroupSizeX, 12, 2),
    (HiddenArg::GroupSizeY, 14, 2),
    (HiddenArg::GroupSizeZ, 16, 2),
    (HiddenArg::RemainderX, 18, 2),
    (HiddenArg::RemainderY, 20, 2),
    (HiddenArg::RemainderZ, 22, 2),
    (HiddenArg::GlobalOffsetX, 40, 8),
    (HiddenArg::GlobalOffsetY, 48, 8),
    (HiddenArg::GlobalOffsetZ, 56, 8),
    (HiddenArg::GridDims, 64, 2),
    (HiddenArg::PrintfBuffer, 72, 8),
    (HiddenArg::HostcallBuffer, 80, 8),
    (HiddenArg::MultigridSyncArg, 88, 8),
    (HiddenArg::HeapV1, 96, 8),
    (HiddenArg::DefaultQueue, 104, 8),
    (HiddenArg::CompletionAction, 112, 8),
    (HiddenArg::DynamicLdsSize, 120, 4),
    (HiddenArg::PrivateBase, 192, 4),
    (HiddenArg::SharedBase, 196, 4),
    (HiddenArg::QueuePtr, 200, 8),
];

/// The V5 hidden block's size.
pub const V5_HIDDEN_BLOCK_SIZE: u32 = 256;

/// The V4 slots, 8 bytes each: global offsets, then printf (or hostcall), default queue,
/// completion action and multigrid sync (NEW:15456; clang-19 writes `hidden_none` for the
/// unused ones).
const V4_SLOTS: [(HiddenArg, u32); 8] = [
    (HiddenArg::GlobalOffsetX, 0),
    (HiddenArg::GlobalOffsetY, 8),
    (HiddenArg::GlobalOffsetZ, 16),
    (HiddenArg::PrintfBuffer, 24),
    (HiddenArg::HostcallBuffer, 24),
    (HiddenArg::DefaultQueue, 32),
    (HiddenArg::CompletionAction, 40),
    (HiddenArg::MultigridSyncArg, 48),
];

/// The V4 hidden block's size.
pub const V4_HIDDEN_BLOCK_SIZE: u32 = 56;

impl HiddenArg {
    /// Every hidden argument, in declaration order.
    pub const ALL: [HiddenArg; 24] = {
        use HiddenArg::*;
        [
            BlockCountX,
            BlockCountY,
            BlockCountZ,
            GroupSizeX,
            GroupSizeY,
            GroupSizeZ,
            RemainderX,
            RemainderY,
            RemainderZ,
            GlobalOffsetX,
            GlobalOffsetY,
            GlobalOffsetZ,
            GridDims,
            PrintfBuffer,
            HostcallBuffer,
            MultigridSyncArg,
            HeapV1,
            DefaultQueue,
            CompletionAction,
            DynamicLdsSize,
            PrivateBase,
            SharedBase,
            QueuePtr,
            Unused,
        ]
    };

    /// The hidden arguments clang-19 lists for an OpenCL C kernel that reads any of them
    /// (without printf or device enqueue): V5 block counts, group sizes, remainders, global
    /// offsets and grid dims; V4 the global offsets (its other slots become `hidden_none`).
    pub fn standard(version: CodeObjectVersion) -> &'static [HiddenArg] {
        use HiddenArg::*;
        if version.has_v5_abi() {
            &[
                BlockCountX,
                BlockCountY,
                BlockCountZ,
                GroupSizeX,
                GroupSizeY,
                GroupSizeZ,
                RemainderX,
                RemainderY,
                RemainderZ,
                GlobalOffsetX,
                GlobalOffsetY,
                GlobalOffsetZ,
                GridDims,
            ]
        } else {
            &[GlobalOffsetX, GlobalOffsetY, GlobalOffsetZ]
        }
    }

    /// Size in bytes.
    pub fn size(self) -> u32 {
        match V5_SLOTS.iter().find(|(arg, ..)| *arg == self) {
            Some(&(_, _, size)) => size,
            None => 8, // Unused: a V4 slot
        }
    }

    /// The offset from the hidden block's start in `version`, if the version has the slot.
    pub fn block_offset(self, version: CodeObjectVersion) -> Option<u32> {
        if version.has_v5_abi() {
            V5_SLOTS.iter().find(|(arg, ..)| *arg == self).map(|&(_, offset, _)| offset)
        } else {
            V4_SLOTS.iter().find(|(arg, _)| *arg == self).map(|&(_, offset)| offset)
        }
    }
}

/// Where every kernel argument lives in the kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernargLayout {
    /// The offset of each explicit argument, in order.
    pub explicit_offsets: Vec<u32>,
    /// The hidden arguments present, with their offsets, by increasing offset.
    pub hidden: Vec<(HiddenArg, u32)>,
    /// The segment size (descriptor KERNARG_SIZE, metadata `.kernarg_segment_size`).
    pub size: u32,
    /// The segment alignment (`.kernarg_segment_align`).
    pub align: u32,
}

fn align_up(value: u32, align: u32) -> u32 {
    value.div_ceil(align.max(1)) * align.max(1)
}

impl KernargLayout {
    /// The layout with [`HiddenArg::standard`]: what clang-19 gives an OpenCL C kernel that
    /// reads an implicit argument (for V5: `size` = explicit end aligned to 8, plus 256).
    pub fn new(args: &[ExplicitArg], version: CodeObjectVersion) -> KernargLayout {
        KernargLayout::with_hidden(args, version, HiddenArg::standard(version))
    }

    /// The layout with exactly the hidden arguments `hidden` (in any order; duplicates and
    /// arguments the version lacks are dropped, and [`HiddenArg::Unused`] is ignored). An
    /// empty list gives no hidden block at all; otherwise the whole block is reserved, and V4
    /// lists its other slots as [`HiddenArg::Unused`].
    pub fn with_hidden(args: &[ExplicitArg], version: CodeObjectVersion, hidden: &[HiddenArg]) -> KernargLayout {
        let mut end = 0u32;
        let mut align = 4u32;
        let explicit_offsets = args
            .iter()
            .map(|arg| {
                let offset = align_up(end, arg.align);
                end = offset + arg.size;
                align = align.max(arg.align);
                offset
            })
            .collect();
        let mut present: Vec<(HiddenArg, u32)> = Vec::new();
        for &arg in hidden {
            match arg.block_offset(version) {
                Some(offset) if arg != HiddenArg::Unused && !present.iter().any(|&(a, o)| a == arg || o == offset) => {
                    present.push((arg, offset))
                }
                _ => {}
            }
        }
        if present.is_empty() {
            return KernargLayout { explicit_offsets, hidden: Vec::new(), size: align_up(end, 4), align };
        }
        if !version.has_v5_abi() {
            for offset in (0..V4_HIDDEN_BLOCK_SIZE).step_by(8) {
                if !present.iter().any(|&(_, o)| o == offset) {
                    present.push((HiddenArg::Unused, offset));
                }
            }
        }
        let start = align_up(end, 8);
        present.sort_by_key(|&(_, offset)| offset);
        let block = if version.has_v5_abi() { V5_HIDDEN_BLOCK_SIZE } else { V4_HIDDEN_BLOCK_SIZE };
        KernargLayout {
            explicit_offsets,
            hidden: present.into_iter().map(|(arg, offset)| (arg, start + offset)).collect(),
            size: start + block,
            align: align.max(8),
        }
    }

    /// The offset of a hidden argument, if the layout has it.
    pub fn hidden_offset(&self, which: HiddenArg) -> Option<u32> {
        self.hidden.iter().find(|&&(arg, _)| arg == which).map(|&(_, offset)| offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(size: u32, kind: ArgKind) -> ExplicitArg {
        ExplicitArg { size, align: size, kind, name: None, type_name: None }
    }

    fn ptr() -> ExplicitArg {
        arg(8, ArgKind::GlobalBuffer { address_space: AddressSpace::Global })
    }

    #[test]
    fn vadd_v5_matches_clang() {
        let args = [ptr(), ptr(), ptr(), arg(4, ArgKind::ByValue)];
        let layout = KernargLayout::new(&args, CodeObjectVersion::V5);
        assert_eq!(layout.explicit_offsets, [0, 8, 16, 24]);
        assert_eq!(layout.size, 288);
        assert_eq!(layout.align, 8);
        assert_eq!(layout.hidden_offset(HiddenArg::GroupSizeX), Some(44));
        assert_eq!(layout.hidden_offset(HiddenArg::GlobalOffsetX), Some(72));
        assert_eq!(layout.hidden_offset(HiddenArg::GridDims), Some(96));
        assert_eq!(layout.hidden_offset(HiddenArg::PrintfBuffer), None);
        assert_eq!(layout.hidden.len(), 13);
    }

    #[test]
    fn v4_fills_unused_slots_and_small_segments_round_to_4() {
        let args = [ptr(), arg(1, ArgKind::ByValue)];
        let layout = KernargLayout::new(&args, CodeObjectVersion::V4);
        assert_eq!(layout.size, 72);
        let kinds: Vec<_> = layout.hidden.iter().map(|&(a, o)| (a, o)).collect();
        assert_eq!(kinds[0], (HiddenArg::GlobalOffsetX, 16));
        assert_eq!(kinds[3..], [40, 48, 56, 64].map(|o| (HiddenArg::Unused, o)));
        assert_eq!(layout.hidden_offset(HiddenArg::BlockCountX), None, "V4 has no block counts");

        let lone_char = KernargLayout::with_hidden(&[arg(1, ArgKind::ByValue)], CodeObjectVersion::V5, &[]);
        assert_eq!((lone_char.size, lone_char.align), (4, 4));
        let none = KernargLayout::with_hidden(&[ptr(), ptr(), arg(1, ArgKind::ByValue)], CodeObjectVersion::V5, &[]);
        assert_eq!((none.size, none.align), (20, 8));
    }
}

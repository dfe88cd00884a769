//! The one description of the machine that every stage below instruction selection shares:
//! the processor table, target IDs, the register model, opcode tables with encodings, the MIR
//! data types, and instruction encoding, decoding and printing.
//!
//! Not yet built: it is the subject of the ISA issue.

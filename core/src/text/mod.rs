//! The text assembler and disassembler (spirv-as / spirv-dis syntax).

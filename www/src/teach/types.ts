// The engine's teaching view of one function (core/src/analysis/teach.rs,
// `session.teachJson` in web/src/teach.rs). Blocks are label ids; texts name
// blocks as the page does (`%name`).
import type { ConstructKind } from "../api";

export interface TeachConstruct {
  kind: ConstructKind;
  header: number;
  entry: number;
  /** "loop construct of %b2". */
  title: string;
  blocks: number[];
}

/** One revision's constructs, back edges and verdict. */
export interface TeachRevision {
  revision: "1.6r1" | "1.6r2";
  valid: boolean;
  backEdges: [number, number][];
  constructs: TeachConstruct[];
  /** The broken rules of section 2.11, in words. */
  violations: string[];
}

/** A block marked in compare mode, with why. */
export interface BlockNote {
  block: number;
  construct: string;
  r1: boolean;
  r2: boolean;
  note: string;
}

/** An exit of a construct (`from` absent: an exit it allows; `to` absent: a return). */
export interface Exit {
  from?: number;
  to?: number;
  kind: string;
  allowed: boolean;
}

/** A 1.6r2 construct in the explorer (same index as the report's constructs). */
export interface Explored {
  kind: ConstructKind;
  header: number;
  entry: number;
  merge?: number;
  title: string;
  definition: string;
  /** Blocks the entry structurally dominates. */
  dominated: number[];
  /** Those the definition takes away. */
  excluded: number[];
  blocks: number[];
  allowed: Exit[];
  exits: Exit[];
}

export interface Containing {
  block: number;
  /** [construct index, the rule that puts the block in it], innermost first. */
  constructs: [number, string][];
}

export interface TeachView {
  function: number;
  r1: TeachRevision;
  r2: TeachRevision;
  differing: BlockNote[];
  masked: BlockNote[];
  constructs: Explored[];
  containing: Containing[];
}

/** The CFG panel's revision mode. */
export type TeachMode = "1.6r1" | "1.6r2" | "compare";

// The examples gallery: the paper's figures 2 to 9, one module per mission
// extension, and a few compute shaders. Owned by the CFG panel work.

export interface Example {
  /** Stable id, used in tests and URLs, e.g. `paper-fig3`. */
  id: string;
  title: string;
  /** "paper" | "extension" | "compute" */
  category: string;
  /** One paragraph: what it teaches and why it is valid or invalid. */
  caption: string;
  targetEnv: string;
  /** Whether spirv-val (and so our validator) accepts it at targetEnv. */
  valid: boolean;
  text: string;
}

/** Placeholder until the gallery lands. */
export const EXAMPLES: Example[] = [];

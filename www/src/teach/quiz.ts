// The quiz (in the Flesh tab): a generated CFG, about half of them one edit
// away from valid (core's flesh::quiz through `quizQuestion`), drawn as the
// CFG panel draws it. The learner says valid or invalid and, for invalid,
// clicks the block at fault (or picks it in the list). The answer key is the
// validator's, never the edit's intent: its verdict, the block its first
// error points at, and that error explained with its rule (rules-data.ts)
// and the paper's figure the rule names. State: `AppState.flesh.quiz`.
import type { QuizQuestion } from "../api";
import { GraphvizLayout } from "../cfg/layout";
import { markSelfLoops, parseSvg, svgSize } from "../cfg/drawing";
import { blockIdOf } from "../cfg/interaction";
import { button, el } from "../dom";
import type { Engine } from "../engine";
import { errorText, type AppStore, type QuizState } from "../state";
import { ruleTeachingPane } from "./rules";

/** Whether an answer is right: the verdict, and for an invalid module the
 *  block the validator points at (when it points at one). */
export function isRight(q: QuizQuestion, a: { valid: boolean; block?: number }): boolean {
  if (q.valid || a.valid) return q.valid === a.valid;
  return q.fault === undefined || a.block === q.fault.id;
}


export function mountQuiz(root: HTMLElement, store: AppStore, engine: Engine) {
  const seed = el("input", "flesh-number");
  seed.type = "number";
  seed.id = "quiz-seed";
  seed.min = "0";
  seed.value = "1";
  seed.setAttribute("aria-label", "question number (seed)");
  const ask = button("quiz-new", "Question", "draw the question of this number");
  const yes = button("quiz-valid", "valid", "the validator accepts this CFG");
  const no = button("quiz-invalid", "invalid", "the validator rejects it: then click the block at fault");
  const pickList = el("select");
  pickList.id = "quiz-block";
  pickList.setAttribute("aria-label", "the block at fault");
  const pick = button("quiz-pick", "this block", "answer: the block chosen in the list is at fault");
  const next = button("quiz-next", "Next question", "the next question");
  const head = el("div", "flesh-head");
  head.append(ask, seed, yes, no, pickList, pick, next);
  const prompt = el("p", "quiz-prompt");
  prompt.id = "quiz-prompt";
  prompt.setAttribute("aria-live", "polite");
  const graph = el("div", "quiz-graph");
  graph.id = "quiz-graph";
  graph.setAttribute("role", "img");
  graph.setAttribute("aria-label", "the question's control-flow graph (click a block to answer)");
  const answer = el("div", "quiz-answer");
  answer.id = "quiz-answer";
  root.append(el("h3", "", "Quiz: valid or not?"), head, prompt, graph, answer);

  let layout: GraphvizLayout | undefined;
  let drawn: { question: QuizQuestion; svg: SVGSVGElement } | undefined;
  let token = 0;
  const quiz = (patch: Partial<QuizState>) => {
    const f = store.get().flesh;
    store.update({ flesh: { ...f, quiz: { ...f.quiz, ...patch } } });
  };

  async function askQuestion(n: number) {
    const mine = ++token;
    seed.value = String(n);
    try {
      const { question } = await engine.send({ kind: "quiz", seed: n, blocks: 8 });
      if (mine !== token) return;
      quiz({ question, answer: null, picking: false, asked: store.get().flesh.quiz.asked + 1, error: null });
    } catch (e) {
      if (mine === token) quiz({ error: errorText(e) });
      else console.warn("spvlab: a quiz question a newer one replaced failed", e);
    }
  }

  const seedValue = () => Math.max(0, Math.floor(Number(seed.value)) || 0);
  const answerWith = (valid: boolean, block?: number) => {
    const q = store.get().flesh.quiz;
    if (!q.question || q.answer) return;
    quiz({ answer: { valid, block }, picking: false, answered: q.answered + 1 });
  };
  ask.addEventListener("click", () => void askQuestion(seedValue()));
  seed.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") void askQuestion(seedValue());
  });
  next.addEventListener("click", () => void askQuestion((store.get().flesh.quiz.question?.seed ?? seedValue()) + 1));
  yes.addEventListener("click", () => answerWith(true));
  no.addEventListener("click", () => {
    const q = store.get().flesh.quiz;
    if (q.question && !q.answer) quiz({ picking: true });
  });
  pick.addEventListener("click", () => {
    if (store.get().flesh.quiz.picking && pickList.value !== "") answerWith(false, Number(pickList.value));
  });
  graph.addEventListener("click", (ev) => {
    const id = blockIdOf(ev.target);
    if (id !== null && store.get().flesh.quiz.picking) answerWith(false, id);
  });

  /** Lay the question's CFG out (Graphviz in its worker, started on the
   *  first question). */
  async function draw(q: QuizQuestion) {
    layout ??= new GraphvizLayout();
    graph.dataset.state = "rendering";
    const l = await layout.layout(q.dot);
    if (!l || store.get().flesh.quiz.question !== q) return;
    const svg = parseSvg(l.svg);
    if (!svg) {
      graph.dataset.state = "error";
      graph.replaceChildren(el("p", "error", "Graphviz failed: its SVG does not parse."));
      return;
    }
    const size = svgSize(svg);
    if (size) {
      svg.setAttribute("width", String(size.w));
      svg.setAttribute("height", String(size.h));
    }
    svg.classList.add("cfg-svg");
    markSelfLoops(svg);
    graph.replaceChildren(svg);
    drawn = { question: q, svg };
    graph.dataset.state = "ready";
    marks(store.get().flesh.quiz);
  }

  /** The learner's pick and, once answered, the block at fault. */
  function marks(s: QuizState) {
    const svg = drawn && drawn.question === s.question ? drawn.svg : undefined;
    if (!svg) return;
    svg.querySelectorAll(".cfg-diag, .quiz-picked").forEach((e) => e.classList.remove("cfg-diag", "quiz-picked"));
    if (s.answer?.block !== undefined) svg.querySelector(`[id="block-${s.answer.block}"]`)?.classList.add("quiz-picked");
    if (s.answer && s.question?.fault) svg.querySelector(`[id="block-${s.question.fault.id}"]`)?.classList.add("cfg-diag");
  }

  function explanation(q: QuizQuestion, a: { valid: boolean; block?: number }): HTMLElement[] {
    const right = isRight(q, a);
    const verdict = el("p", `quiz-verdict ${right ? "good" : "bad"}`, right ? "Right." : "Wrong.");
    const out: HTMLElement[] = [verdict];
    const edited = q.mutation ? ` (This CFG was generated and then edited: ${q.mutation}.)` : "";
    const d = q.diagnostic;
    if (q.valid || !d) {
      out.push(el("p", "", `The validator accepts this module: every structured control flow rule holds.${edited}`));
      return out;
    }
    const said = a.valid ? "You said valid." : a.block !== undefined ? `You picked ${q.blocks.find((b) => b.id === a.block)?.name ?? `%${a.block}`}.` : "";
    out.push(el("p", "", `The validator rejects it.${edited} ${said}`));
    const diag = el("div", "quiz-diagnostic");
    diag.dataset.code = d.code;
    diag.append(el("span", "code", d.code), document.createTextNode(": "), el("span", "msg", d.message));
    out.push(diag);
    if (q.fault) out.push(el("p", "quiz-fault", `The block at fault: ${q.fault.name} (marked on the graph).`));
    if (d.summary) out.push(el("p", "quiz-summary", `The rule: ${d.summary}`));
    if (d.explanation) out.push(el("p", "quiz-explanation", d.explanation));
    const teaching = ruleTeachingPane(d.code);
    if (teaching) out.push(teaching);
    return out;
  }

  store.watch(
    (s) => [s.flesh.quiz.question],
    (s) => {
      const q = s.flesh.quiz.question;
      pickList.replaceChildren(...(q?.blocks ?? []).map((b) => new Option(b.name, String(b.id))));
      if (q) void draw(q).catch((e: unknown) => quiz({ error: `cannot draw the graph: ${errorText(e)}` }));
      else graph.replaceChildren();
    },
  );
  store.watch(
    (s) => [s.flesh.quiz],
    (s) => {
      const z = s.flesh.quiz;
      const q = z.question;
      const open = !!q && !z.answer;
      yes.disabled = no.disabled = !open;
      pickList.disabled = pick.disabled = !z.picking;
      next.disabled = !q;
      root.dataset.asked = String(z.asked);
      root.dataset.answered = String(z.answered);
      root.dataset.picking = String(z.picking);
      if (z.error) prompt.textContent = z.error;
      else if (!q) prompt.textContent = "Draw a question: is its CFG valid, and if not, which block is at fault?";
      else if (z.picking) prompt.textContent = "Invalid: click the block at fault on the graph (or pick it in the list).";
      else if (!z.answer) prompt.textContent = `Question ${q.seed}: is this CFG valid?`;
      else prompt.textContent = `Question ${q.seed}: answered.`;
      answer.replaceChildren(...(q && z.answer ? explanation(q, z.answer) : []));
      answer.dataset.right = q && z.answer ? String(isRight(q, z.answer)) : "";
      marks(z);
    },
  );
}

// Moves built step by step from the move texts the server lists: the page knows no rules.
// A game module splits each text into steps, a step being a target on the board (`key`) and,
// where the target alone does not say it, a `choice` there (a rotation, a face, a tile
// letter).  A MoveSet holds the moves of one position; the player's steps so far narrow it
// to the moves that begin with them (or, for a move whose steps may come in any order, that
// hold them).  The server lists a seat's moves as blocks (rules/api.py move_blocks):
// expandBlocks is the twin of rules.api.expand_blocks.  Imports nothing.

class MoveSet {
  /**
   * The moves of `texts`; `split(text)` gives {steps, ordered} for a move the board can
   * build, or null (the swap has its own button).  A text that names one target twice is
   * no move (blocks may yield such), and a move already met in another order is kept once.
   */
  constructor(texts, split) {
    this.moves = [];
    const seen = new Set();
    for (const text of texts) {
      const move = split(text);
      if (move === null) continue;
      const keys = move.steps.map((step) => step.key);
      if (new Set(keys).size < keys.length) continue;
      const id = move.ordered ? text : move.steps.map(stepId).sort().join("|");
      if (seen.has(id)) continue;
      seen.add(id);
      this.moves.push({ text, steps: move.steps, ordered: move.ordered });
    }
  }

  get size() {
    return this.moves.length;
  }

  /** The moves that the steps `chosen` begin (or, in any order, belong to). */
  matching(chosen) {
    return this.moves.filter((move) => extendsSteps(move, chosen));
  }

  /** The targets that may come next after `chosen`: key -> the choices there, sorted. */
  next(chosen) {
    const found = new Map();
    const taken = new Set(chosen.map((step) => step.key));
    for (const move of this.matching(chosen)) {
      const following = move.ordered ? move.steps.slice(chosen.length, chosen.length + 1) : move.steps.filter((step) => !taken.has(step.key));
      for (const step of following) {
        if (!found.has(step.key)) found.set(step.key, new Set());
        found.get(step.key).add(step.choice ?? null);
      }
    }
    const sorted = new Map();
    for (const [key, choices] of found) sorted.set(key, [...choices].sort(byChoice));
    return sorted;
  }

  /** The move made of exactly the steps `chosen`, or null. */
  exact(chosen) {
    return this.matching(chosen).find((move) => move.steps.length === chosen.length) ?? null;
  }

  /** Whether some move goes on after the steps `chosen`. */
  continues(chosen) {
    return this.matching(chosen).some((move) => move.steps.length > chosen.length);
  }
}

/** Whether `move` begins with the steps `chosen` (holds them, for an unordered move). */
function extendsSteps(move, chosen) {
  if (chosen.length > move.steps.length) return false;
  if (move.ordered) return chosen.every((step, i) => sameStep(step, move.steps[i]));
  return chosen.every((step) => move.steps.some((other) => sameStep(step, other)));
}

function sameStep(a, b) {
  return a.key === b.key && (a.choice ?? null) === (b.choice ?? null);
}

function stepId(step) {
  return `${step.key}\u0000${step.choice ?? ""}`;
}

function byChoice(a, b) {
  return String(a ?? "").localeCompare(String(b ?? ""));
}

/** The move texts of a list of blocks: a text stands for itself, a block for every choice
 * of one part per list joined by its `join`, never with the same part twice. */
function expandBlocks(blocks) {
  const texts = [];
  for (const block of blocks ?? []) {
    if (typeof block === "string") {
      texts.push(block);
      continue;
    }
    let combinations = [[]];
    for (const choices of block.parts) {
      const longer = [];
      for (const done of combinations) for (const choice of choices) if (!done.includes(choice)) longer.push([...done, choice]);
      combinations = longer;
    }
    for (const parts of combinations) texts.push(parts.join(block.join));
  }
  return texts;
}

export { MoveSet, expandBlocks, sameStep };

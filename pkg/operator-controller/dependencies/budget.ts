/**
 * The estimated CEL cost one resolution (one reconcile's dependency check, one search for
 * providers) may spend (decision 0110): each evaluation is paid for with its estimate before it
 * runs; once the budget is spent, further rules are not run and do not hold. Verdicts already
 * known (cached per rule and candidate) cost nothing.
 */
export class CostBudget {
  readonly limit: number;
  #spent = 0;
  /** The latest evaluation refused (a rule too costly on a candidate, or the budget spent), in words. */
  refusal: string | undefined;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** What has been spent so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Pays `cost` when the budget still holds it; false (nothing paid) when it does not. */
  spend(cost: number): boolean {
    if (this.#spent + cost > this.limit) return false;
    this.#spent += cost;
    return true;
  }
}

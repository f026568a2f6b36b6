/** Extension names by a key (a package, an API): a multimap whose empty sets are dropped. */
export class NameSets {
  readonly #sets = new Map<string, Set<string>>();

  /** Adds (`add` true) or removes `name` under `key`. */
  set(key: string, name: string, add: boolean): void {
    let names = this.#sets.get(key);
    if (add) {
      if (names === undefined) this.#sets.set(key, (names = new Set()));
      names.add(name);
      return;
    }
    names?.delete(name);
    if (names?.size === 0) this.#sets.delete(key);
  }

  /** Adds the names under `key` to `out`. */
  addTo(key: string, out: Set<string>): void {
    for (const n of this.#sets.get(key) ?? []) out.add(n);
  }

  /** Every name under any key. */
  all(): string[] {
    const out = new Set<string>();
    for (const names of this.#sets.values()) for (const n of names) out.add(n);
    return [...out];
  }
}

/**
 * The body of `/api/hub` (pure): every tile with its Installed mark, the problems and the catalogs'
 * badges. A tile's JSON is made once per hub index and kept beside it, so a visit adds only the
 * Installed marks: at 5,000 packages a visit otherwise copied and serialized 5,000 tiles (2.5 MB)
 * again, on the console's single thread, while the page waited for them.
 */
import type { CatalogBadge } from './catalog-badge.ts';
import type { HubTile } from './hub-index.ts';

/** What one `/api/hub` answer is made of. */
interface HubAnswerParts {
  /** The hub index's tiles (the same array for as long as the index is used). */
  tiles: readonly HubTile[];
  /** Whether the tile of catalog/package is installed. */
  installed(tile: HubTile): boolean;
  problems: readonly string[];
  badges: Readonly<Record<string, CatalogBadge>>;
}

/** A maker of `/api/hub` bodies, keeping each index's tile JSON for as long as the index lives. */
export function createHubAnswers(): (parts: HubAnswerParts) => string {
  const made = new WeakMap<readonly HubTile[], string[]>();
  return ({ tiles, installed, problems, badges }) => {
    let json = made.get(tiles);
    if (json === undefined) {
      // Each tile's object without its closing brace: the Installed mark is its last member.
      json = tiles.map((t) => JSON.stringify(t).slice(0, -1));
      made.set(tiles, json);
    }
    const marked = tiles.map((t, i) => `${json[i] ?? ''},"installed":${installed(t)}}`);
    return `{"tiles":[${marked.join(',')}],"problems":${JSON.stringify(problems)},"badges":${JSON.stringify(badges)}}`;
  };
}

import type { CatalogLink, NamedCollection, NamedRecord } from '../links/catalog.link';

/** Records kept per collection between batches; past it the collection's cache starts again (memory stays bounded). */
const CACHE_MAX = 50_000;

/**
 * The records an export's rows name (brands, families, categories and their trees, parents and
 * service products), read from the catalog a batch at a time and kept between batches, so a
 * brand named by a million products is read once.
 */
export class NameCache {
  private readonly cache = new Map<NamedCollection, Map<string, NamedRecord | null>>();

  constructor(private readonly catalog: CatalogLink) {}

  private of(collection: NamedCollection): Map<string, NamedRecord | null> {
    let c = this.cache.get(collection);
    if (!c) this.cache.set(collection, (c = new Map()));
    return c;
  }

  /** Reads the records not known yet (and the trees of the categories read), so `get` answers for them. */
  async load(wanted: Iterable<[NamedCollection, string]>): Promise<void> {
    const missing = new Map<NamedCollection, Set<string>>();
    for (const [collection, id] of wanted) {
      if (this.of(collection).has(id)) continue;
      let ids = missing.get(collection);
      if (!ids) missing.set(collection, (ids = new Set()));
      ids.add(id);
    }
    const trees: [NamedCollection, string][] = [];
    await Promise.all(
      [...missing].map(async ([collection, ids]) => {
        const cache = this.of(collection);
        if (cache.size + ids.size > CACHE_MAX) cache.clear();
        const found = await this.catalog.named(collection, [...ids]);
        for (const id of ids) cache.set(id, null);
        for (const r of found) {
          cache.set(r.id, r);
          if (r.category_tree_id) trees.push(['category_trees', r.category_tree_id]);
        }
      }),
    );
    if (trees.length > 0) await this.load(trees);
  }

  /** A record read by `load`; undefined when the id names no live record. */
  get(collection: NamedCollection, id: string | undefined): NamedRecord | undefined {
    if (id === undefined) return undefined;
    return this.cache.get(collection)?.get(id) ?? undefined;
  }
}

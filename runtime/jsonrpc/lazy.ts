/**
 * A module imported on first use, once per process, so that a bundler puts it in a chunk of its
 * own and a program that never needs it never loads it.
 */

/** What {@link lazy} returns. */
export interface Lazy<T> {
  /**
   * Starts the import (or joins the one under way) and resolves with the module. A failed import
   * is forgotten: the next call tries again. @throws (rejects with) the import's error.
   */
  load(): Promise<T>;
  /** The module once an import has resolved, else undefined: callers that have it stay synchronous. */
  loaded(): T | undefined;
}

/**
 * Wraps `importer` (an arrow around one `import('./x.js')`, written where the module is needed so
 * the bundler sees the specifier) in a {@link Lazy}.
 * @example const handle = lazy(() => import('./handle.js')); const { TaskHandle } = await handle.load();
 */
export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let module: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load: () =>
      (loading ??= importer().then(
        (m) => (module = m),
        (e: unknown) => {
          loading = undefined;
          throw e;
        },
      )),
    loaded: () => module,
  };
}

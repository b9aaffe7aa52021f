/**
 * The error of unreadable or inconsistent schema inputs: names the file and the field (or place)
 * at fault. Kept apart from ./ingest.ts so that commands which do not ingest (serve, call) can
 * recognise it without loading the TypeScript compiler.
 */
export class IngestError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    message: string,
  ) {
    super(`${file}: ${field}: ${message}`);
    this.name = 'IngestError';
  }
}

/**
 * What the two Go emitters share: the message-only bindings (bindings.ts, `--target go`) and the
 * SDK's message types (types.ts, `--target go-sdk`) map the same shape (../shape.ts) to the same
 * Go types: a struct is used by pointer, a union is a sealed interface whose variants that are
 * not structs get a `<Union>VariantN` wrapper, an alias keeps its target, any JSON value is a
 * `json.RawMessage`, optional scalars are pointers. They differ in how they decode and encode
 * (the bindings stand alone on encoding/json; the SDK calls its runtime's allocation-light
 * scanner) and in field names (the SDK takes Go's initialisms).
 */
import type { ProtocolModel } from '../../model.js';
import type { Decl, Shape, Ty } from '../shape.js';
import { typeExpr, type TypeTable } from '../bindings/view.js';

/** Package name of a revision: `mcp20251125`, `mcpdraft`. */
export function goPackageName(revision: string): string {
  return `mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;
}

/** The Go types of a revision's shape, and the wrappers of union variants that are not structs. */
export class GoTypeMap {
  /** Wrapper types of union variants that are not structs: union → index → wrapper name. */
  readonly wrappers = new Map<string, Map<number, string>>();

  constructor(
    readonly model: ProtocolModel,
    readonly shape: Shape,
  ) {
    const taken = new Set(shape.decls.map((d) => d.name));
    for (const d of shape.decls) {
      if (d.kind !== 'union') continue;
      const m = new Map<number, string>();
      d.variants.forEach((v, i) => {
        if (this.isStruct(v)) return;
        let name = `${d.name}Variant${i + 1}`;
        for (let n = 2; taken.has(name); n++) name = `${d.name}Variant${i + 1}_${n}`;
        taken.add(name);
        m.set(i, name);
      });
      this.wrappers.set(d.name, m);
    }
  }

  decl(name: string): Decl | undefined {
    return this.shape.byName.get(name);
  }

  isStruct(t: Ty): t is { k: 'ref'; name: string } {
    return t.k === 'ref' && this.decl(t.name)?.kind === 'struct';
  }

  /** Whether the Go type of `t` is nil-able (pointer, slice, map, interface, RawMessage). */
  nilable(t: Ty): boolean {
    if (t.k === 'ref') {
      const d = this.decl(t.name)!;
      if (d.kind === 'alias') return this.nilable(d.ty);
      return true;
    }
    return ['any', 'array', 'map', 'prims', 'null'].includes(t.k);
  }

  /** The Go type of each kind of value: a struct (or an alias of one) by pointer. */
  readonly types: TypeTable = {
    ref: (t, d) => (d.kind === 'struct' || (d.kind === 'alias' && this.isStruct(d.ty)) ? `*${t.name}` : t.name),
    string: 'string',
    integer: 'int64',
    number: 'float64',
    boolean: 'bool',
    json: 'json.RawMessage',
    array: (items) => `[]${items}`,
    map: (values) => `map[string]${values}`,
  };

  /** The Go type of a value. */
  goType(t: Ty): string {
    return typeExpr(this.types, this.shape, t);
  }

  /** The type an alias declares: a struct alias keeps the struct type (its decoders give `*T`). */
  aliasTarget(t: Ty): string {
    return this.isStruct(t) ? t.name : this.goType(t);
  }
}

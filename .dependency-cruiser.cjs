/**
 * The layering of mcpgen, checked by `npm test` (test/layout/dependencies.test.ts) and by
 * `npx depcruise --config .dependency-cruiser.cjs runtime generator cli reference schema generated examples`.
 *
 * - generator/ is pure: it imports neither the runtime, the command line nor the reference server.
 * - runtime/ is revision-agnostic and stands alone: no generator, cli, reference, schema or generated.
 * - generated code reaches the runtime only through runtime/codegen/v1.ts.
 * - cli/ and reference/ reach the runtime through its package subpaths (@mcpgen/runtime/…).
 * - runtime/ layers point down only (RUNTIME_LAYERS, lowest first); no cycles anywhere.
 */

/** The runtime's layer folders, lowest first: a layer imports only layers before it (and itself). */
// stores/ (the contracts of what a deployment shares, their memory and Redis implementations) sits
// below the transports and the tasks that take them
const RUNTIME_LAYERS = [
  'jsonrpc',
  'codec',
  'protocol',
  'engine',
  'auth',
  'stores',
  'transport',
  'stateless',
  'tasks',
  'session',
  'features',
  'codegen',
];

/** Layers inside `layer`'s folder, which its rule does not cover (they have their own). */
const nested = (layer) => RUNTIME_LAYERS.filter((l) => l.startsWith(`${layer}/`));

const layerRules = RUNTIME_LAYERS.slice(0, -1).map((layer, i) => ({
  name: `runtime-${layer.replace('/', '-')}-points-down`,
  comment: `runtime/${layer}/ may import only ${RUNTIME_LAYERS.slice(0, i).join(', ') || 'nothing of the runtime'} (layers below it)`,
  severity: 'error',
  from: nested(layer).length
    ? { path: `^runtime/${layer}/`, pathNot: `^runtime/(${nested(layer).join('|')})/` }
    : { path: `^runtime/${layer}/` },
  to: { path: `^runtime/(${RUNTIME_LAYERS.slice(i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no import cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'generator-is-pure',
      comment: 'generator/ imports neither the runtime, the command line nor the reference server',
      severity: 'error',
      from: { path: '^generator/' },
      to: { path: '^(runtime|cli|reference|generated|examples|bench|test)/' },
    },
    {
      name: 'schema-stands-alone',
      comment: 'schema/ (pins and the input resolver) is below the generator',
      severity: 'error',
      from: { path: '^schema/' },
      to: { path: '^(generator|runtime|cli|reference|generated|examples)/' },
    },
    {
      name: 'runtime-stands-alone',
      comment:
        'runtime/ imports nothing of the generator, the command line, the reference server, the inputs or the generated code',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^(generator|cli|reference|schema|generated|examples|bench|test)/' },
    },
    {
      name: 'runtime-index-is-the-top',
      comment:
        'runtime/index.ts and the layer entries (runtime/<layer>/index.ts, the package subpaths) are for users: nothing inside the runtime imports them',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^runtime/(index|[a-z-]+/index|transport/http/[a-z-]+/index)\\.ts$' },
    },
    {
      name: 'cli-uses-the-runtime-package',
      comment:
        'cli/ and reference/ import the runtime as an application does, by its package subpaths (@mcpgen/runtime/…), never by a relative path: the installed mcpgen has no runtime/ beside cli/',
      severity: 'error',
      from: { path: '^(cli|reference)/' },
      to: { path: '^runtime/', dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'reference-is-an-application',
      comment: 'reference/ is built on the runtime; it imports neither the command line nor the generator',
      severity: 'error',
      from: { path: '^reference/' },
      to: { path: '^(generator|cli|schema)/' },
    },
    {
      name: 'generated-through-codegen-v1',
      comment: 'generated code reaches the runtime only through runtime/codegen/v1.ts',
      severity: 'error',
      from: { path: '^generated/' },
      to: { path: '^(runtime|generator|cli|reference|schema)/', pathNot: '^runtime/codegen/v1\\.ts$' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)parity\\.gen\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // package specifiers resolve through `exports` (@mcpgen/runtime/stdio → runtime/transport/stdio.ts),
    // so the rules see where cli/ and reference/ enter the runtime
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};

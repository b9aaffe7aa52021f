/**
 * The table of the binding languages quicktype-core renders (the others are in own.ts): what is
 * emitted for each, how quicktype-core renders it, which fixes run on the rendered text, and
 * what the test suite proves about it.
 */
import { FIXES, type Fix } from './fixes.js';

export type BindingLanguageId = 'cpp' | 'java' | 'csharp' | 'kotlin' | 'swift';

/** What `test/generator/bindings` proves about a language's binding. */
export interface BindingTest {
  /**
   * `round-trip`: compiled with a driver that parses every official example as its type and
   * prints it back, compared as JSON values. `compile-only`: compiled, never run.
   * `not tested`: emitted only; `why` says what is missing.
   */
  readonly kind: 'round-trip' | 'compile-only' | 'not tested';
  /** Debian packages that bring the toolchain and the JSON library (see scripts/ci-toolchains.sh). */
  readonly aptPackages: readonly string[];
  readonly why: string;
}

export interface BindingLanguage {
  /** Output paths, relative to the revision's output folder (`*` stands for one file per type). */
  readonly fileNames: readonly string[];
  readonly test: BindingTest;
  /** quicktype-core's name for the language. */
  readonly quicktype: string;
  /** The file name quicktype is asked for; the single file is written to `fileNames[0]`. */
  readonly outputFilename: string;
  /** Folder for languages whose files quicktype names itself (Java: one file per class). */
  readonly dir?: string;
  /** How a line comment starts. */
  readonly comment: '//' | '#';
  readonly rendererOptions: Readonly<Record<string, string | boolean>>;
  /** Top-levels are named only after types they declare (quicktype.ts, `ownTopLevelNames`). */
  readonly ownTopLevelNames?: boolean;
  /** Post-processing of the rendered text, in order. */
  readonly fixes: readonly Fix[];
}

export const BINDING_LANGUAGES: Readonly<Record<BindingLanguageId, BindingLanguage>> = {
  cpp: {
    fileNames: ['bindings/cpp/mcp_types.hpp'],
    test: {
      kind: 'round-trip',
      aptPackages: ['g++', 'nlohmann-json3-dev'],
      why: 'C++17 structs with nlohmann/json to_json/from_json, namespace mcp; built by g++',
    },
    quicktype: 'cpp',
    outputFilename: 'mcp_types.hpp',
    comment: '//',
    rendererOptions: {
      namespace: 'mcp',
      'source-style': 'single-source',
      'include-location': 'global-include',
      'code-format': 'with-struct',
      'const-style': 'west-const',
      boost: false,
      'hide-null-optional': true,
    },
    fixes: FIXES.cpp,
  },
  java: {
    fileNames: ['bindings/java/mcp/types/*.java'],
    test: {
      kind: 'round-trip',
      aptPackages: ['default-jdk-headless', 'libjackson2-databind-java'],
      why: 'Jackson-annotated classes, package mcp.types, one file per class; built by javac',
    },
    quicktype: 'java',
    outputFilename: 'Converter.java',
    dir: 'bindings/java/mcp/types',
    comment: '//',
    rendererOptions: {
      package: 'mcp.types',
      'array-type': 'list',
      'just-types': false,
      'datetime-provider': 'java8',
      lombok: false,
    },
    ownTopLevelNames: true,
    fixes: FIXES.java,
  },
  csharp: {
    fileNames: ['bindings/csharp/McpTypes.cs'],
    test: {
      kind: 'round-trip',
      aptPackages: ['mono-mcs', 'mono-runtime', 'pkg-config', 'libnewtonsoft-json-cil-dev'],
      why: 'Newtonsoft.Json classes, namespace Mcp.Types; built by mono mcs and run by mono',
    },
    quicktype: 'csharp',
    outputFilename: 'McpTypes.cs',
    comment: '//',
    rendererOptions: {
      framework: 'NewtonSoft',
      namespace: 'Mcp.Types',
      'csharp-version': '6',
      'array-type': 'list',
      density: 'normal',
      features: 'complete',
      'any-type': 'object',
      'check-required': false,
    },
    ownTopLevelNames: true,
    fixes: FIXES.csharp,
  },
  kotlin: {
    fileNames: ['bindings/kotlin/McpTypes.kt'],
    test: {
      kind: 'compile-only',
      aptPackages: ['kotlin'],
      why: "plain data classes (framework just-types): Debian's kotlin 1.3 has no JSON library to round-trip with (no klaxon, kotlinx.serialization or jackson-module-kotlin), so kotlinc only compiles them",
    },
    quicktype: 'kotlin',
    outputFilename: 'McpTypes.kt',
    comment: '//',
    rendererOptions: { framework: 'jackson', package: 'mcp.types', 'just-types': true },
    fixes: FIXES.kotlin,
  },
  swift: {
    fileNames: ['bindings/swift/McpTypes.swift'],
    test: {
      kind: 'not tested',
      aptPackages: [],
      why: "Codable structs; Debian 12 ships no Swift compiler (its package 'swift' is OpenStack object storage), and the CI machine reaches only Debian's and npm's registries",
    },
    quicktype: 'swift',
    outputFilename: 'McpTypes.swift',
    comment: '//',
    rendererOptions: {
      'struct-or-class': 'struct',
      'access-level': 'public',
      'support-linux': true,
      initializers: true,
      'coding-keys': true,
    },
    fixes: FIXES.swift,
  },
};

/** Every language id, in table order. */
export const BINDING_LANGUAGE_IDS = Object.keys(BINDING_LANGUAGES) as BindingLanguageId[];

/**
 * The table of the languages whose bindings mcpgen renders itself from the ProtocolModel (each
 * in its language's folder: ../python/bindings.ts, ../go/bindings.ts, ../rust/bindings.ts,
 * ../java/bindings.ts, ../csharp/bindings.ts, ../kotlin/bindings.ts, their
 * templates beside them; the shared pass in ../shape.ts), and what their tests prove.
 */
import type { ProtocolModel } from '../../model.js';
import { emitGo } from '../go/bindings.js';
import { emitPython } from '../python/bindings.js';
import { emitRust } from '../rust/bindings.js';
import { emitJava } from '../java/bindings.js';
import { emitCSharp } from '../csharp/bindings.js';
import { emitKotlin } from '../kotlin/bindings.js';

/** What `test/generator/bindings` proves about a language's binding. */
export interface BindingTest {
  /** `round-trip`: compiled (or type-checked) and run against the differential inputs and the examples. */
  readonly kind: 'round-trip';
  /** Debian packages that bring the toolchain and the JSON library (see scripts/ci-toolchains.sh). */
  readonly aptPackages: readonly string[];
  readonly why: string;
}

export type OwnLanguageId = 'python' | 'go' | 'rust' | 'java' | 'csharp' | 'kotlin';

export interface OwnLanguage {
  readonly test: BindingTest;
  /** What the package holds. */
  readonly output: string;
  /** Files relative to generated/<rev>/ (under bindings/<lang>/). */
  emit(model: ProtocolModel): Map<string, string>;
}

export const OWN_BINDING_LANGUAGES: Readonly<Record<OwnLanguageId, OwnLanguage>> = {
  python: {
    output:
      'package mcp_types_<rev> (pyproject.toml): dataclasses with Literal discriminants, Union aliases, validating decoders raising DecodeError(path), method maps, error codes, versions; standard library only, Python 3.11+; typed: mypy-clean (--strict)',
    test: {
      kind: 'round-trip',
      aptPackages: ['python3', 'mypy'],
      why: 'run by python3 -O: examples round-trip, schema-derived mutations refused at their path, exhaustive match (typing.assert_never, at run time), stdio client against serve (2025-11-25 and draft); checked by mypy --strict: the package type-checks, and an exhaustive match is refused on a binding with one more variant',
    },
    emit: emitPython,
  },
  go: {
    output:
      'module per revision (go.mod, package mcp<rev>): structs with MarshalJSON/UnmarshalJSON, unions as interfaces with tag dispatch and exhaustive Match<Union> visitors, *DecodeError{Path, Message}, method maps, error codes, versions; standard library only, Go 1.19+',
    test: {
      kind: 'round-trip',
      aptPackages: ['golang-go'],
      why: 'built by go: examples round-trip, schema-derived mutations refused at their path, exhaustive visitors (a missing variant does not compile) and type switches, stdio client against serve (2025-11-25 and draft)',
    },
    emit: emitGo,
  },
  rust: {
    output:
      'crate per revision (Cargo.toml, mcp_types_<rev>): structs and enums with Serialize/Deserialize, tag dispatch, decode::<T> with DecodeError { path, message }, method maps, error codes, versions; depends on serde and serde_json only',
    test: {
      kind: 'round-trip',
      aptPackages: ['cargo', 'librust-serde-dev', 'librust-serde-json-dev'],
      why: "built offline by cargo against Debian's serde crates: examples round-trip, schema-derived mutations refused at their path, match without wildcard (a missing variant does not compile), stdio client against serve (2025-11-25 and draft)",
    },
    emit: emitRust,
  },
  java: {
    output:
      'Maven package per revision (pom.xml, package dev.mcpgen.bindings.mcp<rev>): final classes with getters and setters, unions as sealed interfaces (variants listed with @JsonSubTypes), validating decoders throwing DecodeException(path), checked encoders throwing EncodeException, Jackson (de)serializers on every message, method maps, error codes, versions; depends on jackson-databind only, Java 17+',
    test: {
      kind: 'round-trip',
      aptPackages: ['default-jdk-headless', 'libjackson2-databind-java'],
      why: "built by javac (-Xlint:all -Werror) against Debian's Jackson jars: examples round-trip, the schema's verdict on the differential inputs, schema-derived mutations refused at their path, serve's answers through the method map, an ObjectMapper reading a server-everything tools/list, encoders refusing invalid values",
    },
    emit: emitJava,
  },
  csharp: {
    output:
      'project per revision (<Namespace>.csproj, namespace McpGen.Bindings.Mcp<Rev>): sealed classes with nullable properties, unions as interfaces implemented by their variant classes, validating decoders throwing DecodeException(Path), checked encoders throwing EncodeException, a Newtonsoft.Json converter on every type, method maps, error codes, versions; depends on Newtonsoft.Json only, C# 7.2, netstandard2.0',
    test: {
      kind: 'round-trip',
      aptPackages: ['mono-mcs', 'mono-runtime', 'libnewtonsoft-json-cil-dev'],
      why: "built by mono's mcs (-warnaserror) against Debian's Newtonsoft.Json and run by mono: examples round-trip, the schema's verdict on the differential inputs, schema-derived mutations refused at their path, serve's answers through the method map, JsonConvert reading a server-everything tools/list, encoders refusing invalid values",
    },
    emit: emitCSharp,
  },
  kotlin: {
    output:
      'Gradle project per revision (build.gradle.kts, package dev.mcpgen.bindings.mcp<rev>): classes with the required members first in the constructor, unions as sealed interfaces implemented by their variants, validating decoders throwing DecodeException(path), checked encoders throwing EncodeException, a kotlinx.serialization serializer on every message, method maps, error codes, versions; depends on kotlinx-serialization-json only, Kotlin 2.1 on the JVM',
    test: {
      kind: 'round-trip',
      aptPackages: ['default-jdk-headless'],
      why: "built by the Kotlin compiler 2.1.21 with the kotlinx.serialization plugin (pinned jars from Maven Central, run on Debian's JDK): examples round-trip, the schema's verdict on the differential inputs, schema-derived mutations refused at their path, serve's answers through the method map",
    },
    emit: emitKotlin,
  },
};

export const OWN_BINDING_LANGUAGE_IDS = Object.keys(OWN_BINDING_LANGUAGES) as OwnLanguageId[];

export function isOwnLanguage(id: string): id is OwnLanguageId {
  return Object.hasOwn(OWN_BINDING_LANGUAGES, id);
}

/**
 * The Kotlin toolchain of the Kotlin bindings' tests: the Kotlin compiler (kotlin-compiler-
 * embeddable, run by Debian's JDK), the kotlinx.serialization compiler plugin and runtime, at the
 * versions the generated build.gradle.kts names (KOTLIN_VERSION, KOTLINX_SERIALIZATION_VERSION).
 * Debian ships Kotlin 1.3 without kotlinx.serialization, so the jars come from Maven Central,
 * each pinned by size and sha256, into `.cache/kotlin/` (fetched once; a jar that does not match
 * its pin is refused and removed).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support.js';

const CENTRAL = 'https://repo1.maven.org/maven2';

interface Jar {
  /** Path below the Maven repository root. */
  path: string;
  size: number;
  sha256: string;
  /** What it is for: the compiler's class path, the compiler plugin, or the program's class path. */
  role: 'compiler' | 'plugin' | 'library';
}

/** The jars, pinned (the compiler's dependencies as its POM lists them). */
export const KOTLIN_JARS: readonly Jar[] = [
  {
    path: 'org/jetbrains/kotlin/kotlin-compiler-embeddable/2.1.21/kotlin-compiler-embeddable-2.1.21.jar',
    size: 56958642,
    sha256: '67a2e3673765f097725608cc7c843b0d8fdd94bd9af41327211361614aa57d49',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/kotlin/kotlin-daemon-embeddable/2.1.21/kotlin-daemon-embeddable-2.1.21.jar',
    size: 345429,
    sha256: '9401effd82de8606df3289308a275cc1d3573768665ca5edd09dc319c71715f4',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/kotlin/kotlin-reflect/1.6.10/kotlin-reflect-1.6.10.jar',
    size: 3038560,
    sha256: '3277ac102ae17aad10a55abec75ff5696c8d109790396434b496e75087854203',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/kotlin/kotlin-script-runtime/2.1.21/kotlin-script-runtime-2.1.21.jar',
    size: 43365,
    sha256: 'd8221f445854f30ac92c248d543609e0ecb5d85bb5ba34c043684b013cb5b897',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/intellij/deps/trove4j/1.0.20200330/trove4j-1.0.20200330.jar',
    size: 572985,
    sha256: 'c5fd725bffab51846bf3c77db1383c60aaaebfe1b7fe2f00d23fe1b7df0a439d',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/annotations/13.0/annotations-13.0.jar',
    size: 17536,
    sha256: 'ace2a10dc8e2d5fd34925ecac03e4988b2c0f851650c94b8cef49ba1bd111478',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/kotlinx/kotlinx-coroutines-core-jvm/1.8.0/kotlinx-coroutines-core-jvm-1.8.0.jar',
    size: 1548360,
    sha256: '9860906a1937490bf5f3b06d2f0e10ef451e65b95b269f22daf68a3d1f5065c5',
    role: 'compiler',
  },
  {
    path: 'org/jetbrains/kotlin/kotlin-serialization-compiler-plugin-embeddable/2.1.21/kotlin-serialization-compiler-plugin-embeddable-2.1.21.jar',
    size: 556989,
    sha256: 'd21480ecec14e022da202afbc409167c53c64ff640bfb21902230fedc6285de1',
    role: 'plugin',
  },
  {
    path: 'org/jetbrains/kotlin/kotlin-stdlib/2.1.21/kotlin-stdlib-2.1.21.jar',
    size: 1724058,
    sha256: '263bdc679e1f62012db7b091796279b6d71cf36f4797a98ff1ace05835f201c8',
    role: 'library',
  },
  {
    path: 'org/jetbrains/kotlinx/kotlinx-serialization-core-jvm/1.8.1/kotlinx-serialization-core-jvm-1.8.1.jar',
    size: 391821,
    sha256: '3565b6d4d789bf70683c45566944287fc1d8dc75c23d98bd87d01059cc76f2b3',
    role: 'library',
  },
  {
    path: 'org/jetbrains/kotlinx/kotlinx-serialization-json-jvm/1.8.1/kotlinx-serialization-json-jvm-1.8.1.jar',
    size: 276969,
    sha256: '8769e5647557e3700919c32d508f5c5dad53c5d8234cd10846354fbcff14aa24',
    role: 'library',
  },
];

export interface KotlinToolchain {
  /** Class path of the compiler's JVM (the compiler, its dependencies, the standard library). */
  compiler: string[];
  /** The kotlinx.serialization compiler plugin (`-Xplugin=`). */
  plugin: string;
  /** Class path of the compiled bindings and programs. */
  libraries: string[];
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The jars in `.cache/kotlin/`, fetched from Maven Central where missing; throws on a mismatch. */
export async function kotlinToolchain(): Promise<KotlinToolchain> {
  const dir = join(ROOT, '.cache', 'kotlin');
  mkdirSync(dir, { recursive: true });
  const local = new Map<Jar, string>();
  for (const jar of KOTLIN_JARS) {
    const file = join(dir, jar.path.slice(jar.path.lastIndexOf('/') + 1));
    if (existsSync(file) && sha256(readFileSync(file)) !== jar.sha256) rmSync(file);
    if (!existsSync(file)) {
      const url = `${CENTRAL}/${jar.path}`;
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length !== jar.size || sha256(bytes) !== jar.sha256)
        throw new Error(`${url}: ${bytes.length} bytes, sha256 ${sha256(bytes)}; pinned ${jar.size}, ${jar.sha256}`);
      writeFileSync(`${file}.part`, bytes);
      renameSync(`${file}.part`, file);
    }
    local.set(jar, file);
  }
  const of = (role: Jar['role']) => KOTLIN_JARS.filter((j) => j.role === role).map((j) => local.get(j)!);
  return {
    compiler: [...of('compiler'), ...of('library').filter((f) => f.includes('kotlin-stdlib'))],
    plugin: of('plugin')[0],
    libraries: of('library'),
  };
}

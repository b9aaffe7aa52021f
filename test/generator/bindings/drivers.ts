/**
 * One round-trip driver per compiled language. `build` writes the driver into the folder that
 * holds the generated binding and compiles it (throwing with the compiler's output on failure);
 * `run` executes it on `manifest.tsv` (see harness.ts for the manifest format).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { BindingLanguageId } from '../../../generator/emit/bindings/index.js';
import { bindingNames, requireFile, requireTool, run } from './harness.js';

export type RoundTripLanguage = Exclude<BindingLanguageId, 'kotlin' | 'swift'>;

export interface Driver {
  /** Fails, naming the Debian package, when the toolchain is missing. */
  requireToolchain(): void;
  /** Writes and compiles the driver for `types` next to the binding in `dir`. */
  build(dir: string, files: Map<string, string>, types: string[]): void;
  /** Runs the driver on `dir/manifest.tsv`. */
  run(dir: string): void;
}

const cpp: Driver = {
  requireToolchain() {
    requireTool('cpp', 'g++');
    requireFile('cpp', '/usr/include/nlohmann/json.hpp', 'nlohmann-json3-dev');
  },
  build(dir, files, types) {
    const names = bindingNames('cpp', files, types);
    const entries = [...names]
      .map(([type, name]) => `    {${JSON.stringify(type)}, &round_trip<mcp::${name}>},`)
      .join('\n');
    writeFileSync(
      join(dir, 'driver.cpp'),
      `#include "bindings/cpp/mcp_types.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using nlohmann::json;

template <typename T>
std::string round_trip(const std::string & text) {
    T value = json::parse(text).get<T>();
    json out = value;
    return out.dump();
}

static const std::map<std::string, std::string (*)(const std::string &)> conversions = {
${entries}
};

int main(int argc, char ** argv) {
    std::ifstream manifest(argv[1]);
    std::string line;
    while (std::getline(manifest, line)) {
        std::istringstream fields(line);
        std::string type_name, source, target;
        std::getline(fields, type_name, '\\t');
        std::getline(fields, source, '\\t');
        std::getline(fields, target, '\\t');
        try {
            std::ifstream input(source);
            std::stringstream text;
            text << input.rdbuf();
            auto found = conversions.find(type_name);
            if (found == conversions.end()) throw std::runtime_error("no conversion for " + type_name);
            std::string out = found->second(text.str());
            std::ofstream(target) << out;
        } catch (const std::exception & error) {
            std::ofstream(target + ".err") << error.what() << "\\n";
        }
    }
    return 0;
}
`,
    );
    run('g++', ['-std=c++17', '-O0', '-w', '-o', 'driver', 'driver.cpp'], { cwd: dir });
  },
  run(dir) {
    run(join(dir, 'driver'), ['manifest.tsv'], { cwd: dir });
  },
};

const JACKSON_JARS = ['jackson-databind', 'jackson-core', 'jackson-annotations'].map(
  (name) => `/usr/share/java/${name}.jar`,
);

/** The Converter's method prefix per type (`Converter.<prefix>FromJsonString`). */
function converterNames(converter: string, types: string[]): Map<string, string> {
  const key = (s: string): string => s.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  const byKey = new Map<string, string>();
  for (const [, name] of converter.matchAll(/public static .+? (\w+)FromJsonString\(/g)) byKey.set(key(name), name);
  const out = new Map<string, string>();
  for (const type of types) {
    const name = byKey.get(key(type));
    assert.ok(name !== undefined, `java: Converter has no ${type}FromJsonString`);
    out.set(type, name!);
  }
  return out;
}

const java: Driver = {
  requireToolchain() {
    requireTool('java', 'javac');
    requireTool('java', 'java');
    for (const jar of JACKSON_JARS) requireFile('java', jar, 'libjackson2-databind-java');
  },
  build(dir, files, types) {
    const converter = readFileSync(join(dir, 'bindings/java/mcp/types/Converter.java'), 'utf8');
    const names = converterNames(converter, types);
    const cases = [...names]
      .map(
        ([type, name]) =>
          `            case ${JSON.stringify(type)}: return Converter.${name}ToJsonString(Converter.${name}FromJsonString(text));`,
      )
      .join('\n');
    writeFileSync(
      join(dir, 'Driver.java'),
      `import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import mcp.types.Converter;

public class Driver {
    static String convert(String type, String text) throws Exception {
        switch (type) {
${cases}
            default: throw new IllegalArgumentException("no conversion for " + type);
        }
    }

    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String[] fields = line.split("\\t");
            try {
                String text = new String(Files.readAllBytes(Paths.get(fields[1])), StandardCharsets.UTF_8);
                Files.write(Paths.get(fields[2]), convert(fields[0], text).getBytes(StandardCharsets.UTF_8));
            } catch (Exception error) {
                Files.write(Paths.get(fields[2] + ".err"), (error.toString() + "\\n").getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
`,
    );
    const sources = [...files.keys()].filter((path) => path.endsWith('.java'));
    writeFileSync(join(dir, 'sources.txt'), `${[...sources, 'Driver.java'].join('\n')}\n`);
    run('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', 'classes', '-cp', JACKSON_JARS.join(':'), '@sources.txt'], {
      cwd: dir,
    });
  },
  run(dir) {
    run('java', ['-cp', ['classes', ...JACKSON_JARS].join(':'), 'Driver', 'manifest.tsv'], { cwd: dir });
  },
};

const csharp: Driver = {
  requireToolchain() {
    requireTool('csharp', 'mcs');
    requireTool('csharp', 'mono');
    requireFile('csharp', '/usr/lib/pkgconfig/newtonsoft-json.pc', 'libnewtonsoft-json-cil-dev');
  },
  build(dir, files, types) {
    const names = bindingNames('csharp', files, types);
    const cases = [...names]
      .map(
        ([type, name]) => `            case ${JSON.stringify(type)}: return Serialize.ToJson(${name}.FromJson(text));`,
      )
      .join('\n');
    writeFileSync(
      join(dir, 'Driver.cs'),
      `using System;
using System.IO;
using System.Text;
using Mcp.Types;

public static class Driver
{
    static string Convert(string type, string text)
    {
        switch (type)
        {
${cases}
            default: throw new ArgumentException("no conversion for " + type);
        }
    }

    public static void Main(string[] args)
    {
        foreach (var line in File.ReadAllLines(args[0], Encoding.UTF8))
        {
            var fields = line.Split('\\t');
            try
            {
                var text = File.ReadAllText(fields[1], Encoding.UTF8);
                File.WriteAllText(fields[2], Convert(fields[0], text), new UTF8Encoding(false));
            }
            catch (Exception error)
            {
                File.WriteAllText(fields[2] + ".err", error.GetType().Name + ": " + error.Message + "\\n");
            }
        }
    }
}
`,
    );
    run(
      'mcs',
      [
        '-nologo',
        '-nowarn:1591,0618',
        '-pkg:newtonsoft-json',
        '-r:System.Runtime.Serialization',
        '-out:driver.exe',
        'Driver.cs',
        'bindings/csharp/McpTypes.cs',
      ],
      { cwd: dir },
    );
  },
  run(dir) {
    run('mono', ['driver.exe', 'manifest.tsv'], { cwd: dir });
  },
};

export const DRIVERS: Readonly<Record<RoundTripLanguage, Driver>> = { cpp, java, csharp };

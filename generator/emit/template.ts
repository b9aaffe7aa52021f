/**
 * The handlebars setup every emitter shares. An emitter keeps its templates in a folder beside
 * its code (`templates/` for the TypeScript output, `<lang>/templates/<artifact>/` for the
 * others): `<name>.hbs` is a template, `_<name>.hbs` the partial `{{> name}}`. Templates only
 * place what the emitter's view model resolved (names, types, decoder expressions, escaped
 * docs): no helpers are registered, so a template cannot decide anything its view did not.
 *
 * Output is code: no HTML escaping, strict lookups (a name missing from the view is an error,
 * not an empty string), LF line ends and exactly one final newline.
 */
import Handlebars from 'handlebars';
import { readdirSync, readFileSync } from 'node:fs';

export interface TemplateOptions {
  /** Blank lines allowed in a row; longer runs are cut to this many (default: no limit). */
  maxBlankLines?: number;
  /** Spaces and tabs at line ends removed (default false). */
  trimLineEnds?: boolean;
}

/** A folder of templates: `render(name, view)` renders `<folder>/<name>.hbs` with `view`. */
export interface TemplateFolder {
  render(name: string, view: object): string;
}

/** The templates of `folder` (a `file:` URL ending in `/`), compiled on first use. */
export function templateFolder(folder: URL, options: TemplateOptions = {}): TemplateFolder {
  let env: typeof Handlebars | undefined;
  const compiled = new Map<string, HandlebarsTemplateDelegate>();
  const read = (file: string) => readFileSync(new URL(file, folder), 'utf8');
  const environment = (): typeof Handlebars => {
    if (env) return env;
    env = Handlebars.create();
    for (const file of readdirSync(folder).sort()) {
      if (file.startsWith('_') && file.endsWith('.hbs'))
        env.registerPartial(file.slice(1, -'.hbs'.length), env.compile(read(file), { noEscape: true, strict: true }));
    }
    return env;
  };
  const blankRun =
    options.maxBlankLines === undefined ? undefined : new RegExp(`\\n{${options.maxBlankLines + 2},}`, 'g');
  const blanks = '\n'.repeat((options.maxBlankLines ?? 0) + 1);
  return {
    render(name, view) {
      let template = compiled.get(name);
      if (!template) {
        template = environment().compile(read(`${name}.hbs`), { noEscape: true, strict: true });
        compiled.set(name, template);
      }
      let text = template(view).replace(/\r\n/g, '\n');
      if (options.trimLineEnds) text = text.replace(/[ \t]+$/gm, '');
      if (blankRun) text = text.replace(blankRun, blanks);
      return text.replace(/\s*$/, '\n');
    },
  };
}

/**
 * The module graph as TypeScript itself sees it, for the layering test: every file of a tsconfig, each with what it
 * imports, resolved by the compiler's own module resolution under that tsconfig's options. Read from the syntax
 * tree, not by pattern, so no form of import hides: import and export ... from (type-only ones too), import x =
 * require(), import() with a string or template literal, require() and the require functions createRequire makes.
 * An import whose module is computed cannot be checked, so it is reported as such rather than passed over.
 */
import { isBuiltin } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export type Target =
  | { kind: 'file'; path: string }
  | { kind: 'package'; name: string }
  | { kind: 'builtin'; name: string }
  | { kind: 'unresolved'; reason: string };

export interface Edge {
  /** The importing file, relative to the working directory, with forward slashes. */
  from: string;
  line: number;
  /** The module as written, or the expression's text when it is computed. */
  specifier: string;
  target: Target;
}

export interface ModuleGraph {
  files: string[];
  /** What a file imports; files outside the tsconfig are read on demand, under the same options. */
  edgesOf(file: string): Edge[];
  /** The files given and every file of code they import, directly or not. */
  reachableFrom(files: string[]): string[];
}

const relative = (file: string): string => path.relative('.', file).split(path.sep).join('/');

export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Reads a tsconfig (its files and options) and returns its module graph. */
export function moduleGraph(tsconfigPath: string): ModuleGraph {
  const config = ts.getParsedCommandLineOfConfigFile(tsconfigPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`cannot read ${tsconfigPath}`);
  const options = config.options;
  const cache = ts.createModuleResolutionCache(process.cwd(), (name) => name, options);
  const edges = new Map<string, Edge[]>();

  function resolve(specifier: string, containingFile: string, mode: ts.ResolutionMode): Target {
    if (isBuiltin(specifier)) return { kind: 'builtin', name: specifier };
    const isPath = specifier.startsWith('.') || path.isAbsolute(specifier);
    const { resolvedModule } = ts.resolveModuleName(specifier, containingFile, options, ts.sys, cache, undefined, mode);
    if (!isPath && (!resolvedModule || resolvedModule.isExternalLibraryImport)) {
      return { kind: 'package', name: packageName(specifier) };
    }
    if (resolvedModule) return { kind: 'file', path: relative(resolvedModule.resolvedFileName) };
    // TypeScript resolves only modules of code; a stylesheet the bundler takes is a file all the same.
    const file = path.resolve(path.dirname(containingFile), specifier);
    if (ts.sys.fileExists(file)) return { kind: 'file', path: relative(file) };
    return { kind: 'unresolved', reason: 'no such module' };
  }

  function read(file: string): Edge[] {
    const absolute = path.resolve(file);
    const text = ts.sys.readFile(absolute);
    if (text === undefined) throw new Error(`cannot read ${file}`);
    const source = ts.createSourceFile(absolute, text, options.target ?? ts.ScriptTarget.ES2022, true);
    const found: Edge[] = [];
    const from = relative(absolute);
    const add = (node: ts.Node, specifier: string, target: Target) => {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ from, line, specifier, target });
    };
    const esm = ts.ModuleKind.ESNext;
    const cjs = ts.ModuleKind.CommonJS;

    /** A literal module name, or undefined when the module is computed. */
    const literal = (node: ts.Expression | undefined): string | undefined =>
      node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;

    // Names bound in this file to a require function: the global one, and those createRequire makes.
    type Base = 'here' | 'elsewhere';
    const requires = new Map<string, Base>([['require', 'here']]);
    const createRequires = new Set<string>();
    const madeHere = (call: ts.CallExpression): Base => {
      const [argument] = call.arguments;
      return argument && /^import\.meta\.(url|filename|dirname)$/.test(argument.getText(source)) ? 'here' : 'elsewhere';
    };
    const isCreateRequire = (callee: ts.Expression): boolean =>
      (ts.isIdentifier(callee) && createRequires.has(callee.text)) ||
      (ts.isPropertyAccessExpression(callee) && callee.name.text === 'createRequire');
    /** The base of the require function an expression is, if it is one. */
    const requireFunction = (node: ts.Expression): Base | undefined => {
      if (ts.isParenthesizedExpression(node)) return requireFunction(node.expression);
      if (ts.isIdentifier(node)) return requires.get(node.text);
      if (ts.isCallExpression(node) && isCreateRequire(node.expression)) return madeHere(node);
      return undefined;
    };

    const addCall = (node: ts.Node, argument: ts.Expression | undefined, mode: ts.ResolutionMode, base: Base) => {
      const name = literal(argument);
      if (name === undefined) {
        add(node, argument?.getText(source) ?? '', { kind: 'unresolved', reason: 'computed module name' });
      } else if (base === 'here' || isBuiltin(name) || !(name.startsWith('.') || path.isAbsolute(name))) {
        // A bare name is the same package whichever file a require function was made for.
        add(node, name, resolve(name, absolute, mode));
      } else {
        add(node, name, { kind: 'unresolved', reason: 'relative to a file other than this one' });
      }
    };

    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const name = literal(node.moduleSpecifier as ts.Expression)!;
        add(node, name, resolve(name, absolute, esm));
        if (ts.isImportDeclaration(node) && /^(node:)?module$/.test(name)) {
          const bindings = node.importClause?.namedBindings;
          if (bindings && ts.isNamedImports(bindings)) {
            for (const element of bindings.elements) {
              const imported = (element.propertyName ?? element.name).text;
              if (imported === 'createRequire') createRequires.add(element.name.text);
            }
          }
        }
      } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
        addCall(node, node.moduleReference.expression, cjs, 'here');
      } else if (ts.isImportTypeNode(node)) {
        const argument = node.argument;
        if (ts.isLiteralTypeNode(argument)) addCall(node, argument.literal as ts.Expression, esm, 'here');
      } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
        const base = requireFunction(node.initializer);
        if (base) requires.set(node.name.text, base);
      } else if (ts.isCallExpression(node)) {
        const callee = node.expression;
        if (callee.kind === ts.SyntaxKind.ImportKeyword) {
          addCall(node, node.arguments[0], esm, 'here');
        } else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve') {
          // require.resolve names a module as surely as require loads it.
          const base = requireFunction(callee.expression);
          if (base) addCall(node, node.arguments[0], cjs, base);
        } else {
          const base = isCreateRequire(callee) ? undefined : requireFunction(callee);
          if (base) addCall(node, node.arguments[0], cjs, base);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  function edgesOf(file: string): Edge[] {
    const key = relative(path.resolve(file));
    let known = edges.get(key);
    if (!known) edges.set(key, (known = read(key)));
    return known;
  }

  function reachableFrom(files: string[]): string[] {
    const seen = new Set(files);
    for (const file of seen) {
      for (const { target } of edgesOf(file)) {
        if (target.kind === 'file' && /\.(ts|tsx|js|mjs|cjs)$/.test(target.path)) seen.add(target.path);
      }
    }
    return [...seen];
  }

  return { files: config.fileNames.map(relative), edgesOf, reachableFrom };
}

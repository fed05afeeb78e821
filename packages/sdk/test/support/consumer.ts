/**
 * A TypeScript consumer of the installed package, as an integrator's project sees it: one ES
 * module and one CommonJS module, type-checked strictly against the package's declarations.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface ConsumerSources {
  /** `esm.mts`: resolved through the package's `import` conditions. */
  readonly esm: string;
  /** `cjs.cts`: resolved through its `require` conditions. */
  readonly cjs: string;
}

/** Writes the two modules and a strict tsconfig into `dir` and runs tsc there. */
export function typecheckConsumer(
  dir: string,
  sources: ConsumerSources,
): { readonly output: string; readonly status: number | null } {
  writeFileSync(join(dir, 'esm.mts'), sources.esm);
  writeFileSync(join(dir, 'cjs.cts'), sources.cjs);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
      },
      files: ['esm.mts', 'cjs.cts'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', cwd: dir });
  return { output: result.stdout + result.stderr, status: result.status };
}

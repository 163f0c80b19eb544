/** See current-directory.cjs. */
export function missingCurrentDirectory(env: NodeJS.ProcessEnv): { code: 'E_USAGE'; message: string; fix: string } | undefined;

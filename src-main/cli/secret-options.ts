/**
 * The parseArgs options for secrets (see secret-args.ts), apart from the code that reads them,
 * so a command can declare them without loading the connection-URI parser and its schemas.
 */

/** parseArgs options every command that opens a server connection accepts. */
export const passwordFileOption = { 'password-file': { type: 'string' } } as const;
/** parseArgs options of commands that call a model. */
export const apiKeyOptions = { 'api-key': { type: 'string' }, 'api-key-file': { type: 'string' } } as const;

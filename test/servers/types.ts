/** A real database server started for one test file; stop() ends it and deletes its data. */
export interface TestServer {
  /** Connection URI with credentials, e.g. `postgres://wb:secret@127.0.0.1:5433/wbtest`. */
  readonly uri: string;
  /**
   * The same database as a privileged login: PostgreSQL's cluster superuser; MariaDB's login
   * with ALL PRIVILEGES (its `uri` is a read-only login, see mariadb.ts).
   */
  readonly adminUri?: string;
  /** Credentials again, for drivers (Neo4j) that take them apart from the URI. */
  readonly username: string;
  readonly password: string;
  /** Wall-clock milliseconds from spawn to accepting queries, reported by the suites. */
  readonly startupMs: number;
  stop(): Promise<void>;
}

// agent-ledger users: add people and change their role or status from a shell (the first admin
// of a fresh install comes from here). Every change is a `system` ledger entry by "cli:<user>".
import { z } from "zod";
import { ROLES } from "../../lib/domain/access";
import {
  createUser,
  emailSchema,
  roleSchema,
  setUserDisabled,
  setUserRole,
  unlockSignIn,
} from "../../lib/server/commands/users";
import { readUsers } from "../../lib/server/queries/list-users";
import { cliPrincipal, failure, listSubcommand, shortTime, withAppDatabase } from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseCommandLine,
  parseOption,
  parseOptions,
  printJson,
  readAll,
  type Subcommand,
} from "./shared";

const NOTES = `Roles: ${ROLES.join(", ")}. The last active admin cannot be demoted or disabled.
Changes are recorded in the ledger's system stream with the actor "cli:<os user>".

Exit codes: 0 ok, 1 refused (exists already, no such user, last admin), 2 could not run.`;

const requiredEmail = (v: string | undefined) =>
  parseOption(z.string({ message: "is required" }).pipe(emailSchema), v, "--email");
const requiredRole = (v: string | undefined) =>
  parseOption(z.string({ message: "is required" }).pipe(roleSchema), v, "--role");

/** Reads one line from the terminal without echoing it. Ctrl-C cancels. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo goes off before the prompt appears, so nothing typed after it is ever shown.
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value: string[] = [];
    const finish = (error?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(value.join(""));
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish();
        if (ch === "\u0003") return finish(new Error("cancelled; nobody was added"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value.push(ch);
      }
    };
    stdin.on("data", onData);
  });
}

async function readPassword(email: string, fromStdin: boolean): Promise<string> {
  if (fromStdin || !process.stdin.isTTY) {
    return (await readAll(process.stdin)).replace(/\r?\n$/, "");
  }
  const first = await promptHidden(`Password for ${email}: `);
  const again = await promptHidden("Same password again: ");
  if (first !== again) throw new Error("the two passwords differ; nobody was added");
  return first;
}

type Sub = Subcommand["run"];

const add: Sub = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    email: { type: "string" },
    role: { type: "string" },
    name: { type: "string" },
    "password-stdin": { type: "boolean" },
  });
  const email = requiredEmail(opts.email);
  const role = requiredRole(opts.role);
  const password = await readPassword(email, opts["password-stdin"] === true);
  return withAppDatabase("users", async (pool) => {
    const result = await createUser(pool, cliPrincipal(), {
      email,
      role,
      name: opts.name,
      password,
    });
    if (!result.ok) return failure("users add", result);
    if (opts.json) printJson(result.value);
    else
      console.log(`Added ${result.value.email} as ${result.value.role} (id ${result.value.id}).`);
    return EXIT.ok;
  });
};

const list = listSubcommand({
  command: "users",
  read: readUsers,
  none: "Nobody can sign in yet: agent-ledger users add …",
  header: ["EMAIL", "ROLE", "STATUS", "CREATED", "NAME"],
  cells: (u) => [
    u.email,
    u.role,
    u.disabled ? "disabled" : "active",
    shortTime(u.createdAt),
    u.name,
  ],
});

/** set-role, disable and enable: find the person by email, then change them. */
function change(sub: "set-role" | "disable" | "enable", withRole: boolean): Sub {
  return async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      email: { type: "string" },
      ...(withRole ? { role: { type: "string" } } : {}),
    } as const);
    const email = requiredEmail(opts.email);
    const role = withRole ? requiredRole((opts as { role?: string }).role) : undefined;
    return withAppDatabase("users", async (pool) => {
      const { rows } = await pool.query<{ id: string }>(
        "select id from users where lower(email) = $1",
        [email],
      );
      const id = rows[0]?.id;
      if (!id) {
        console.error(`agent-ledger users ${sub}: no user with email ${email}`);
        return EXIT.problem;
      }
      const result = role
        ? await setUserRole(pool, cliPrincipal(), { userId: id, role })
        : await setUserDisabled(pool, cliPrincipal(), { userId: id, disabled: sub === "disable" });
      if (!result.ok) return failure(`users ${sub}`, result);
      const u = result.value;
      if (opts.json) printJson(u);
      else if (sub === "set-role") console.log(`${u.email} is now ${u.role}.`);
      else if (sub === "disable") console.log(`Disabled ${u.email}; their sessions have ended.`);
      else console.log(`Enabled ${u.email}.`);
      return EXIT.ok;
    });
  };
}

/** unlock EMAIL | unlock --address A: lifts a sign-in lock, recorded with who. */
const unlock: Sub = async (argv) => {
  const byAddress = argv.some((a) => a === "--address" || a.startsWith("--address="));
  const options = { ...helpOption, ...jsonOption, address: { type: "string" } } as const;
  const { values, args } = byAddress
    ? { values: parseOptions(argv, options), args: { EMAIL: undefined } }
    : parseCommandLine(argv, options, ["EMAIL"] as const);
  const target = byAddress
    ? { address: parseOption(z.union([z.ipv4(), z.ipv6()]), values.address, "--address") }
    : { email: parseOption(emailSchema, args.EMAIL, "EMAIL") };
  return withAppDatabase("users", async (pool) => {
    const result = await unlockSignIn(pool, cliPrincipal(), target);
    if (!result.ok) return failure("users unlock", result);
    if (values.json) printJson(result.value);
    else if (result.value.scope === "account") {
      console.log(`Sign-in unlocked for ${result.value.subject}, from every address.`);
    } else console.log(`Sign-in unlocked from ${result.value.subject}, for every account.`);
    return EXIT.ok;
  });
};

export const usersCommand = commandGroup({
  name: "users",
  summary:
    "Add people who may sign in; list them; change their role; disable or enable them; lift a sign-in lock",
  notes: NOTES,
  subcommands: [
    {
      name: "add",
      synopsis: "--email E --role R [--name N] [--password-stdin] [--json]",
      description: `Adds a person who may sign in. The password is asked for without echo on a terminal,
or read from standard input when it is piped (--password-stdin says so explicitly;
one trailing newline is dropped). At least 12 characters.`,
      run: add,
    },
    {
      name: "list",
      synopsis: "[--json]",
      description: "Everyone who may sign in, with role and status.",
      run: list,
    },
    {
      name: "set-role",
      synopsis: "--email E --role R [--json]",
      description: "Changes a person's role.",
      run: change("set-role", true),
    },
    {
      name: "disable",
      synopsis: "--email E [--json]",
      description: "Stops a person signing in and ends their sessions at once.",
      run: change("disable", false),
    },
    {
      name: "enable",
      synopsis: "--email E [--json]",
      description: "Lets a disabled person sign in again.",
      run: change("enable", false),
    },
    {
      name: "unlock",
      synopsis: "EMAIL | --address A [--json]",
      description: `Lifts a sign-in lock at once: the account's failed attempts (from every address) or
the address's stop counting. For an owner slowed down by someone else's guesses.
Recorded as sign_in.unlocked in the system stream, with who.`,
      run: unlock,
    },
  ],
});

CREATE TABLE "model_prices" (
	"model" text PRIMARY KEY NOT NULL,
	"input_per_mtok" double precision NOT NULL,
	"output_per_mtok" double precision NOT NULL,
	"cached_input_per_mtok" double precision,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_prices_model_check" CHECK (length("model_prices"."model") between 1 and 200),
	CONSTRAINT "model_prices_price_check" CHECK ("model_prices"."input_per_mtok" between 0 and 100000 and "model_prices"."output_per_mtok" between 0 and 100000 and ("model_prices"."cached_input_per_mtok" is null or "model_prices"."cached_input_per_mtok" between 0 and 100000))
);
--> statement-breakpoint
CREATE TABLE "spend_caps" (
	"agent" text PRIMARY KEY NOT NULL,
	"daily_limit" double precision,
	"key_path" text,
	"key_daily_limit" double precision,
	"on_exceed" text DEFAULT 'wait' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_caps_on_exceed_check" CHECK ("spend_caps"."on_exceed" in ('wait', 'dead')),
	CONSTRAINT "spend_caps_limit_check" CHECK (("spend_caps"."daily_limit" is null or "spend_caps"."daily_limit" > 0) and ("spend_caps"."key_daily_limit" is null or "spend_caps"."key_daily_limit" > 0)),
	CONSTRAINT "spend_caps_key_check" CHECK (("spend_caps"."key_path" is null) = ("spend_caps"."key_daily_limit" is null) and ("spend_caps"."daily_limit" is not null or "spend_caps"."key_daily_limit" is not null))
);
--> statement-breakpoint
CREATE TABLE "spend_daily" (
	"day" date NOT NULL,
	"agent" text NOT NULL,
	"model" text NOT NULL,
	"backend" integer NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"unpriced_calls" bigint DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_daily_pkey" PRIMARY KEY("day","agent","model","backend")
);
--> statement-breakpoint
CREATE TABLE "spend_key_daily" (
	"day" date NOT NULL,
	"agent" text NOT NULL,
	"key_value" text NOT NULL,
	"backend" integer NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_key_daily_pkey" PRIMARY KEY("day","agent","key_value","backend")
);
--> statement-breakpoint
CREATE TABLE "spend_tool_daily" (
	"day" date NOT NULL,
	"agent" text NOT NULL,
	"tool" text NOT NULL,
	"backend" integer NOT NULL,
	"decisions" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_tool_daily_pkey" PRIMARY KEY("day","agent","tool","backend")
);
--> statement-breakpoint
CREATE TABLE "task_spend" (
	"day" date NOT NULL,
	"agent" text NOT NULL,
	"status" text NOT NULL,
	"backend" integer NOT NULL,
	"tasks" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "task_spend_pkey" PRIMARY KEY("day","agent","status","backend")
);
--> statement-breakpoint
CREATE INDEX "tasks_cost_idx" ON "tasks" USING btree ("cost" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "tasks"."cost" > 0;
CREATE TABLE "idempotency_keys" (
	"principal" text NOT NULL,
	"operation" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer NOT NULL,
	"body" jsonb NOT NULL,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_principal_operation_key_pk" PRIMARY KEY("principal","operation","key"),
	CONSTRAINT "idempotency_keys_fingerprint_check" CHECK ("idempotency_keys"."fingerprint" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "idempotency_keys_status_check" CHECK ("idempotency_keys"."status" between 200 and 599),
	CONSTRAINT "idempotency_keys_expiry_check" CHECK ("idempotency_keys"."expires_at" > "idempotency_keys"."created_at")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");
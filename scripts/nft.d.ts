// The part of @vercel/nft that scripts/build-dashboard.ts uses, from the copy Next ships (and
// traces its own standalone output with): Next publishes no types for it.
declare module "next/dist/compiled/@vercel/nft" {
  const nft: {
    nodeFileTrace(
      files: string[],
      options: { base?: string; processCwd?: string; ignore?: (file: string) => boolean },
    ): Promise<{ fileList: Set<string>; warnings: Set<Error> }>;
  };
  export default nft;
}

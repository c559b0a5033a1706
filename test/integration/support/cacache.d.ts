/** The one function of cacache (npm's cache library, no published types) that the install tests use. */
declare module 'cacache' {
  const cacache: {
    get: {
      /** The content with this integrity (sha512-…) in the cache at `cachePath`; rejects when it is not there. */
      byDigest(cachePath: string, integrity: string): Promise<Buffer>;
    };
  };
  export default cacache;
}

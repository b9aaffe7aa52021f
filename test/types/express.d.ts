/** express (a dependency of @modelcontextprotocol/sdk) ships no types; the interop tests mount the SDK's middleware on it. */
declare module 'express' {
  const express: any;
  export default express;
}

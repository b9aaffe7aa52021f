/** oidc-provider ships no type declarations; the tests use it as an authorization server only. */
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}

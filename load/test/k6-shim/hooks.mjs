// Module resolution hook: the k6 modules a script imports resolve to this folder's shims.
const SHIMS = {
  k6: "./k6.mjs",
  "k6/http": "./http.mjs",
  "k6/execution": "./execution.mjs",
  "k6/metrics": "./metrics.mjs",
};

export async function resolve(specifier, context, next) {
  const shim = SHIMS[specifier];
  if (shim) return { url: new URL(shim, import.meta.url).href, shortCircuit: true };
  if (specifier.startsWith("k6/")) throw new Error(`shim: no shim of ${specifier}`);
  return next(specifier, context);
}

/** One instance per process, even when the development server re-imports the build. */
export function singleton<T>(name: string, create: () => T): T {
  const registry = globalThis as unknown as { __thoughtfullySingletons?: Map<string, unknown> };
  registry.__thoughtfullySingletons ??= new Map();
  if (!registry.__thoughtfullySingletons.has(name)) {
    registry.__thoughtfullySingletons.set(name, create());
  }
  return registry.__thoughtfullySingletons.get(name) as T;
}

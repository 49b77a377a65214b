/** The preview columns of a newly saved link, or of an edit that changed its first address. */
export function previewColumnsFor(urls: string[]) {
  const first = urls.find((url) => /^https?:\/\//i.test(url)) ?? null;
  return {
    previewStatus: first ? ("pending" as const) : null,
    previewUrl: first,
    previewTitle: null,
    previewDescription: null,
    previewSiteName: null,
    previewImageKey: null,
    previewImageSize: 0,
    previewAttempts: 0,
    previewNextAttemptAt: null,
  };
}

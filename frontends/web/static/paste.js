// An image pasted into the composer, as the daemon takes it: base64
// data with its declared type, size in pixels and bytes.

const TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export async function imageFromClipboard(e) {
  const item = [...(e.clipboardData ? e.clipboardData.items : [])].find(i => i.kind === 'file' && TYPES.includes(i.type));
  if (!item) return null;
  e.preventDefault();
  const file = item.getAsFile();
  const bitmap = await createImageBitmap(file);
  const data = await new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
  return { mimeType: file.type, data, width: bitmap.width, height: bitmap.height, bytes: file.size };
}

/** A photo filling its box: the sealed thumbnail, blurred, until the photo itself is open (`url`). */
export function PhotoImage({ url, thumb, alt }: { url: string | null; thumb: string | undefined; alt: string }) {
  if (url) return <img src={url} alt={alt} className="absolute inset-0 size-full object-cover" />;
  if (!thumb) return null;
  return (
    <img
      src={`data:image/jpeg;base64,${thumb}`}
      alt=""
      className="absolute inset-0 size-full scale-110 object-cover blur-md"
    />
  );
}

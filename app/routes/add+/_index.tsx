/** `/add` itself: the folder list of the layout, with no dialog open. */
export default function AddIndex() {
  return null;
}

"""Pages and small JSON endpoints. Each view validates its input, calls one service or
selector and renders; permissions are checked through the project selectors."""

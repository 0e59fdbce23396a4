"""Rendering: template banks, the AMT placeholder format, the bank checker and story stitching."""

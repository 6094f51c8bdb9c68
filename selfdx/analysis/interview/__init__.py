"""`selfdx/interview` in `selfdx report`, and `selfdx export interview`."""

"""Cases of `selfdx/interview`: profiles, the facts a patient can tell, the rule check, and a
demo graph."""

.patch == null

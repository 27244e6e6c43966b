.patch == null and .response.allowed == true

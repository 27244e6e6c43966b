# SPDX-License-Identifier: Apache-2.0
.patch == null and .response.allowed == true

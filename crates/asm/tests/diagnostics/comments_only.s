// only a comment

   
